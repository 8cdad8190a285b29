// Autoscaling (decision 0338), for the autoscaler and the engine observer (src/workers): the
// services to look at, whether one may still be scaled, the scale event and the notes in a
// service's log, and the marks on replicas being added or removed. The SQL is in
// autoscale.repo.ts, reached from outside the services module only through here.
export {
  autoscaleCandidates, autoscaleNote, dropExpiredMarks, markScaling, recordScale, scalingReplicaNames, stillScalable, unmarkScaling,
  type AutoscaleCandidate,
} from './autoscale.repo.ts';

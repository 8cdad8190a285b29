// The console's entry: the data cache (TanStack Query), the session, and the page routes. Every
// page lives under /ui/… so the API's own paths are never shadowed.
import { lazy, StrictMode, Suspense, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClientProvider, useQuery } from '@tanstack/react-query';
import { Redirect, Route, Switch, useLocation } from 'wouter';
import { api, call, session, whenUnauthorized } from './api.ts';
import { ConsoleQueryClient } from './queries.ts';
import type { PageProps } from './page-props.ts';
import { OidcCallback, SignIn } from './pages/SignIn.tsx';
import { CALLBACK_PATH } from './oidc-config.ts';
import { Organizations } from './pages/Organizations.tsx';
import { OrganizationPage } from './pages/Organization.tsx';
import { ProjectPage } from './pages/Project.tsx';
import { EnvironmentPage } from './pages/Environment.tsx';
import { ServicePage } from './pages/Service.tsx';
import { AdvancedSettingsPage } from './pages/AdvancedSettings.tsx';
import { DeploymentPage } from './pages/Deployment.tsx';
import { WorkflowPage } from './pages/Workflow.tsx';
import { WorkflowRunPage } from './pages/WorkflowRun.tsx';
import { WebhookPage } from './pages/Webhook.tsx';
import './styles.css';

// berth.yaml's apply page is rarely opened: its code loads with it, not with every page
const ApplyPage = lazy(() => import('./pages/Apply.tsx').then((m) => ({ default: m.ApplyPage })));

// a query waits for the ids its key holds (queries.ts)
const queryClient = new ConsoleQueryClient({
  defaultOptions: {
    queries: { staleTime: 5_000, refetchOnWindowFocus: false, retry: (n, err) => n < 1 && !(err as { status?: number }).status },
  },
});

function Console() {
  const [signedIn, setSignedIn] = useState(() => session.credential !== null);
  const [location, navigate] = useLocation();
  const config = useQuery({ queryKey: ['console-config'], queryFn: () => call(api.GET('/console/config')), staleTime: Infinity });
  const signOut = () => {
    session.signOut();
    queryClient.clear();
    setSignedIn(false);
    navigate('/ui');
  };
  useEffect(() => whenUnauthorized(() => {
    session.signOut();
    queryClient.clear();
    setSignedIn(false);
  }), []);

  if (location === CALLBACK_PATH) {
    return <OidcCallback oidc={config.isPending ? undefined : config.data?.oidc ?? null} onSignedIn={() => { setSignedIn(true); navigate('/ui'); }} />;
  }
  if (!signedIn) return <SignIn version={config.data?.version} oidc={config.data?.oidc} onSignedIn={() => setSignedIn(true)} />;
  const p: PageProps = { signOut, engine: config.data?.engine };
  return (
    <Switch>
      <Route path="/"><Redirect to="/ui" /></Route>
      <Route path="/ui"><Organizations {...p} /></Route>
      <Route path="/ui/organizations/:orgId/apply">{(a) => <Suspense fallback={null}><ApplyPage {...p} orgId={a.orgId} /></Suspense>}</Route>
      <Route path="/ui/organizations/:orgId/:tab?">{(a) => <OrganizationPage {...p} orgId={a.orgId} tab={a.tab ?? 'projects'} />}</Route>
      <Route path="/ui/projects/:projectId/apply">{(a) => <Suspense fallback={null}><ApplyPage {...p} projectId={a.projectId} /></Suspense>}</Route>
      <Route path="/ui/projects/:projectId">{(a) => <ProjectPage {...p} projectId={a.projectId} />}</Route>
      <Route path="/ui/environments/:envId">{(a) => <EnvironmentPage {...p} envId={a.envId} />}</Route>
      <Route path="/ui/services/:kind/:id/settings/advanced">{(a) => <AdvancedSettingsPage {...p} kind={a.kind as never} id={a.id} />}</Route>
      <Route path="/ui/services/:kind/:id">{(a) => <ServicePage {...p} kind={a.kind as never} id={a.id} />}</Route>
      <Route path="/ui/deployments/:id">{(a) => <DeploymentPage {...p} id={a.id} />}</Route>
      <Route path="/ui/workflows/:id/runs/:runId">{(a) => <WorkflowRunPage {...p} id={a.id} runId={a.runId} />}</Route>
      <Route path="/ui/workflows/:id">{(a) => <WorkflowPage {...p} id={a.id} />}</Route>
      <Route path="/ui/organizations/:orgId/webhooks/:hookId">{(a) => <WebhookPage {...p} orgId={a.orgId} hookId={a.hookId} />}</Route>
      <Route>
        <main><h1>Page not found</h1><p><a href="/ui">Back to your organizations</a></p></main>
      </Route>
    </Switch>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <Console />
    </QueryClientProvider>
  </StrictMode>,
);

// What the console's shell hands every page: the sign-out action and the engine the server runs
// (pages say when it is the simulated one). A leaf, so pages need not import the shell (main.tsx).
export interface PageProps { signOut: () => void; engine: string | undefined }

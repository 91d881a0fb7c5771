/**
 * Why the HTTP server could not listen, in the operator's terms: the address and the settings that
 * choose it (Node's own message names neither the setting nor what to do).
 */
export function listenError(error: unknown, host: string, port: number): Error {
  const code = (error as { code?: string }).code;
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  const choose = 'choose another port with --port, PORT or port: in blockyard.yaml';
  if (code === 'EADDRINUSE') return new Error(`cannot listen on ${where}: another process is using it; stop it or ${choose}`);
  if (code === 'EACCES')
    return new Error(`cannot listen on ${where}: not permitted (ports below 1024 need privileges); ${choose}`);
  if (code === 'EADDRNOTAVAIL') {
    return new Error(
      `cannot listen on ${where}: this machine has no such address; set --host, BLOCKYARD_HOST or host: in blockyard.yaml`,
    );
  }
  return error instanceof Error ? error : new Error(String(error));
}

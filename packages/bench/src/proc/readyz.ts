// Whether a controller process reports ready: its health probe's GET /readyz answers 200
// (ours once its informers have synced). Not reachable yet is "not ready", never an error.
export async function readyz(probeUrl: string): Promise<boolean> {
  try {
    const r = await fetch(`${probeUrl}/readyz`, { signal: AbortSignal.timeout(2_000) });
    return r.status === 200;
  } catch {
    return false;
  }
}

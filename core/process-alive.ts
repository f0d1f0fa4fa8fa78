/** Whether a process with this pid exists (EPERM: it does, under another user, e.g. PostgreSQL run as `postgres`). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

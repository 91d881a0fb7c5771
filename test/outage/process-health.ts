/**
 * Records unhandled rejections and uncaught exceptions in this process (the service runs in it) while
 * a test watches: an outage must not produce any.
 */
export function watchProcessHealth(): { problems(): string[]; stop(): void } {
  const seen: string[] = [];
  const onRejection = (reason: unknown) => void seen.push(`unhandled rejection: ${String((reason as Error)?.stack ?? reason)}`);
  const onException = (error: Error) => void seen.push(`uncaught exception: ${error.stack ?? error.message}`);
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  return {
    problems: () => [...seen],
    stop() {
      process.off('unhandledRejection', onRejection);
      process.off('uncaughtException', onException);
    },
  };
}

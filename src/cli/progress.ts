/**
 * Progress of one long step of a command (walking the audit chain, reconciling a drop copy), through listr2
 * as the pipeline's stages are shown (src/cli/pipeline-view.ts): an animated line on a terminal, updated as
 * the work goes; plain lines in a pipe or under cron, one every tenth of the way, so a log stays short;
 * nothing under `--json`, whose stdout is the answer alone.
 */
import { Listr, ListrLogger, ProcessOutput } from 'listr2';

/**
 * Renderer options that write every line of the progress to standard error: standard output carries the
 * command's answer (rows, a summary, JSON) and a pipe or a cron log must be able to keep the two apart.
 */
export function toStderr(): { rendererOptions: { logger: ListrLogger }; fallbackRendererOptions: { logger: ListrLogger } } {
  const logger = new ListrLogger({ processOutput: new ProcessOutput(process.stderr, process.stderr) });
  return { rendererOptions: { logger }, fallbackRendererOptions: { logger } };
}

/** Whether progress may animate: standard error is a terminal. */
export const progressTty = (): boolean => process.stderr.isTTY === true;

/** Reports `done` of `total` units (total 0: unknown). */
export type Report = (done: number, total: number) => void;

/** Runs `work` as one titled step; its `report` moves the progress. Resolves with what `work` returns. */
export async function withProgress<T>(title: string, silent: boolean, work: (report: Report) => Promise<T>): Promise<T> {
  const tty = progressTty();
  let result: T | undefined;
  await new Listr(
    [
      {
        title,
        rendererOptions: { outputBar: 1 },
        task: async (_: unknown, task: { title: string; output: string }) => {
          let lastTenth = -1;
          const report: Report = (done, total) => {
            const tenth = total > 0 ? Math.floor((10 * done) / total) : lastTenth + 1;
            if (!tty && tenth === lastTenth) return;
            lastTenth = tenth;
            task.output = total > 0 ? `${done} of ${total}` : `${done}`;
          };
          result = await work(report);
          task.title = `${title}: done`;
        },
      },
    ],
    {
      concurrent: false,
      exitOnError: true,
      renderer: silent ? 'silent' : 'default',
      fallbackRenderer: silent ? 'silent' : 'simple',
      fallbackRendererCondition: !tty,
      ...toStderr(),
    },
  ).run();
  return result as T;
}

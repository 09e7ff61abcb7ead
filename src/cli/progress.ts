/**
 * Progress of one long step of a command (walking the audit chain, reconciling a drop copy), through listr2
 * as the pipeline's stages are shown (src/cli/pipeline-view.ts): an animated line on a terminal, updated as
 * the work goes; plain lines in a pipe or under cron, one every tenth of the way, so a log stays short;
 * nothing under `--json`, whose stdout is the answer alone.
 */
import { Listr } from 'listr2';

/** Reports `done` of `total` units (total 0: unknown). */
export type Report = (done: number, total: number) => void;

/** Runs `work` as one titled step; its `report` moves the progress. Resolves with what `work` returns. */
export async function withProgress<T>(title: string, silent: boolean, work: (report: Report) => Promise<T>): Promise<T> {
  const tty = process.stdout.isTTY === true;
  let result: T | undefined;
  await new Listr([{
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
  }], {
    concurrent: false,
    exitOnError: true,
    renderer: silent ? 'silent' : 'default',
    fallbackRenderer: silent ? 'silent' : 'simple',
    fallbackRendererCondition: !tty,
  }).run();
  return result as T;
}

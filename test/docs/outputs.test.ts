/**
 * Every documented output is what the code prints: `npm run docs:check` over README.md and docs/*.md, as part
 * of `npm test`. A failure lists each differing command as a diff naming its file and line; `npm run
 * docs:update` rewrites the outputs (docs/testing.md, "Documented outputs").
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkDocuments, documentedPages } from '../../scripts/docs/check/check.js';
import { buildCli, makeToolbox, removeToolbox, type Toolbox } from '../../scripts/docs/check/workspace.js';
import { sharedDocsTemplate } from '../helpers/docs-template.js';

const root = path.resolve(import.meta.dirname, '..', '..');

let box: Toolbox | undefined;
afterAll(() => {
  if (box) removeToolbox(box);
});

describe('the documented outputs', () => {
  it('match what every console block of README.md and docs/*.md prints, with every timing marker filled and every benchmark block current', async () => {
    // The published history is the run's shared one (test/helpers/docs-template.ts), made as the checker makes its own.
    buildCli(root);
    box = makeToolbox(root, 'dist');
    const template = await sharedDocsTemplate(box);
    const result = await checkDocuments({ packageRoot: root, documents: documentedPages(root), update: false, requireMarkers: true, templateHome: template });
    expect(result.failures.join('\n\n')).toBe('');
  }, 900_000);
});

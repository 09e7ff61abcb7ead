/**
 * The export of the published regimes, in the formats quants load: `GET /v1/export/csv` (text),
 * `GET /v1/export/arrow` (Apache Arrow IPC file) and `GET /v1/export/parquet`. All three take the same
 * `limit`, gated alike (any key; rows capped by tier: Free 30, Starter and Pro 730, the engine tiers and
 * owner the full history; a larger limit is 422) and carry the same rows and columns, newest first, typed
 * in the binary two (pipeline/reports/export.ts). The binary files are built in memory (../../signals/ops/export-file.ts):
 * the tier's cap bounds them (the whole published history is a few hundred kilobytes).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { validationError } from '../../core/errors.js';
import { requireKey } from '../../signals/auth.js';
import type { SignalsContext } from '../../signals/context.js';
import { exportQuery } from '../../signals/inputs.js';
import { exportFile } from '../../signals/ops/export-file.js';
import { exportRows } from '../../signals/store/quant.js';
import { TIER_SPECS } from '../../signals/tiers.js';
import { exportHeader, exportLines, EXPORT_COLUMNS } from '../../../pipeline/reports/export.js';
import { EXTENSION, MEDIA_TYPE, type BinaryFormat } from '../../../pipeline/reports/columnar/formats.js';
import { errorResponses, signalsKeySecurity } from './schemas.js';

type ExportRequest = FastifyRequest<{ Querystring: { limit?: number } }>;

const querystring = { ...exportQuery, properties: { limit: { type: 'integer', minimum: 1, maximum: 1_000_000 } } };
const limitRule =
  'limit: default 730; at most 30 on the Free tier, 730 on Starter and Pro, the full history on the engine tiers and owner (a larger limit is 422).';
const binaryTypes =
  'Typed columns: date a date (Arrow Date32, Parquet DATE), regime a string (an Arrow dictionary), the numbers 64-bit floats, available_at a UTC timestamp (Arrow milliseconds, Parquet microseconds), null where the CSV has it empty.';

/** The rows the key may have: the asked `limit`, or the default within the tier's cap; above the cap, 422. */
function exportLimit(req: ExportRequest): number {
  const spec = TIER_SPECS[req.signalsKey!.tier];
  const limit = req.query.limit ?? Math.min(exportQuery.properties.limit.default, spec.exportRows);
  if (limit > spec.exportRows) throw validationError([{ field: 'limit', message: `must be at most ${spec.exportRows} on the ${spec.label} tier` }]);
  return limit;
}

const attachment = (reply: FastifyReply, type: string, extension: string): FastifyReply =>
  reply.type(type).header('content-disposition', `attachment; filename="regimes.${extension}"`);

export function exportRoutes(app: FastifyInstance, ctx: SignalsContext): void {
  const tags = ['signals quant'];

  app.get<{ Querystring: { limit?: number } }>(
    '/v1/export/csv',
    {
      onRequest: requireKey(ctx, 'key'),
      schema: {
        operationId: 'exportCsv',
        tags,
        security: signalsKeySecurity,
        summary: `The published regimes as CSV, newest first: ${EXPORT_COLUMNS.join(', ')}`,
        description: limitRule,
        querystring,
        response: { 200: { description: 'CSV text', content: { 'text/csv': { schema: { type: 'string' } } } }, ...errorResponses(401, 403, 422, 429, 503) },
      },
    },
    async (req, reply) => {
      const limit = exportLimit(req);
      await ctx.data.assertServable();
      let text = exportHeader();
      await exportRows(ctx.sql, limit, (rows) => {
        text += exportLines(rows);
      });
      return attachment(reply, 'text/csv; charset=utf-8', 'csv').send(text);
    },
  );

  const binary = (format: BinaryFormat, operationId: string, label: string): void => {
    app.get<{ Querystring: { limit?: number } }>(
      `/v1/export/${format}`,
      {
        onRequest: requireKey(ctx, 'key'),
        schema: {
          operationId,
          tags,
          security: signalsKeySecurity,
          summary: `The published regimes as ${label}, newest first: the CSV export's rows and columns (${EXPORT_COLUMNS.join(', ')})`,
          description: `${limitRule} ${binaryTypes}`,
          querystring,
          response: {
            200: { description: `${label} file`, content: { [MEDIA_TYPE[format]]: { schema: { type: 'string', format: 'binary' } } } },
            ...errorResponses(401, 403, 422, 429, 503),
          },
        },
      },
      async (req, reply) => {
        const limit = exportLimit(req);
        await ctx.data.assertServable();
        const { bytes } = await exportFile(ctx.sql, limit, format);
        return attachment(reply, MEDIA_TYPE[format], EXTENSION[format]).send(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      },
    );
  };
  binary('arrow', 'exportArrow', 'an Apache Arrow IPC file');
  binary('parquet', 'exportParquet', 'a Parquet file');
}

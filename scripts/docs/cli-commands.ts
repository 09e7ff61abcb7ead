/**
 * Every `tradeseal` command by its id (the words typed after `tradeseal`), for the generated CLI reference
 * (./cli-reference.ts). oclif finds the commands by their files under commands/; this list names them so
 * the reference can be made synchronously, with the other generated sections, and
 * `test/docs/cli-reference.test.ts` fails when a command file is missing from it.
 */
import type { Command } from '@oclif/core';
import ConfigRemove from '../../commands/config/remove.js';
import ConfigSet from '../../commands/config/set.js';
import ConfigShow from '../../commands/config/show.js';
import DbMigrate from '../../commands/db/migrate.js';
import DbStatus from '../../commands/db/status.js';
import Demo from '../../commands/demo.js';
import EngineAgentsAddModel from '../../commands/engine/agents/add-model.js';
import EngineAgentsList from '../../commands/engine/agents/list.js';
import EngineAgentsRegister from '../../commands/engine/agents/register.js';
import EngineAgentsStatus from '../../commands/engine/agents/status.js';
import EngineAuditLogCheckpoint from '../../commands/engine/audit-log/checkpoint.js';
import EngineAuditLog from '../../commands/engine/audit-log/index.js';
import EngineAuditLogVerify from '../../commands/engine/audit-log/verify.js';
import EngineDropcopyRejects from '../../commands/engine/dropcopy/rejects.js';
import EngineDropcopyStatus from '../../commands/engine/dropcopy/status.js';
import EngineErase from '../../commands/engine/erase.js';
import EngineKeysGen from '../../commands/engine/keys/gen.js';
import EngineLogHead from '../../commands/engine/log/head.js';
import EngineLogKey from '../../commands/engine/log/key.js';
import EngineLogVerify from '../../commands/engine/log/verify.js';
import EngineOrphans from '../../commands/engine/orphans.js';
import EnginePending from '../../commands/engine/pending.js';
import EnginePolicyCheck from '../../commands/engine/policy/check.js';
import EnginePolicyShow from '../../commands/engine/policy/show.js';
import EngineReconcile from '../../commands/engine/reconcile.js';
import EngineShadowOff from '../../commands/engine/shadow/off.js';
import EngineShadowOn from '../../commands/engine/shadow/on.js';
import EngineShadowStatus from '../../commands/engine/shadow/status.js';
import EngineSweep from '../../commands/engine/sweep.js';
import EngineTokensBootstrap from '../../commands/engine/tokens/bootstrap.js';
import EngineTokensIssue from '../../commands/engine/tokens/issue.js';
import EngineTokensList from '../../commands/engine/tokens/list.js';
import EngineTokensRevoke from '../../commands/engine/tokens/revoke.js';
import EngineTracesList from '../../commands/engine/traces/list.js';
import EngineTracesShow from '../../commands/engine/traces/show.js';
import EngineTracesVerify from '../../commands/engine/traces/verify.js';
import PipelineCheck from '../../commands/pipeline/check.js';
import PipelineFetch from '../../commands/pipeline/fetch.js';
import PipelineNightly from '../../commands/pipeline/nightly.js';
import PipelineRun from '../../commands/pipeline/run.js';
import PipelineSchedule from '../../commands/pipeline/schedule.js';
import PipelineStatus from '../../commands/pipeline/status.js';
import QuantArima from '../../commands/quant/arima.js';
import QuantEvaluate from '../../commands/quant/evaluate.js';
import QuantMetrics from '../../commands/quant/metrics.js';
import RegimeHeartbeat from '../../commands/regime/heartbeat.js';
import RegimePublish from '../../commands/regime/publish.js';
import RegimeRelease from '../../commands/regime/release.js';
import RegimeShow from '../../commands/regime/show.js';
import Serve from '../../commands/serve.js';
import SignalsBacktest from '../../commands/signals/backtest.js';
import SignalsExport from '../../commands/signals/export.js';
import SignalsForecast from '../../commands/signals/forecast.js';
import SignalsHeartbeatKey from '../../commands/signals/heartbeat-key.js';
import SignalsHistory from '../../commands/signals/history.js';
import SignalsKeysIssue from '../../commands/signals/keys/issue.js';
import SignalsKeysList from '../../commands/signals/keys/list.js';
import SignalsKeysRevoke from '../../commands/signals/keys/revoke.js';
import SignalsKeysSetTier from '../../commands/signals/keys/set-tier.js';
import SignalsLatest from '../../commands/signals/latest.js';
import SignalsLogBackfill from '../../commands/signals/log/backfill.js';
import SignalsLogHead from '../../commands/signals/log/head.js';
import SignalsLogKey from '../../commands/signals/log/key.js';
import SignalsOutbox from '../../commands/signals/outbox.js';
import SignalsPerformance from '../../commands/signals/performance.js';
import SignalsRange from '../../commands/signals/range.js';
import SignalsVerify from '../../commands/signals/verify.js';

export const CLI_COMMANDS: ReadonlyArray<readonly [string, Command.Class]> = [
  ['config remove', ConfigRemove],
  ['config set', ConfigSet],
  ['config show', ConfigShow],
  ['db migrate', DbMigrate],
  ['db status', DbStatus],
  ['demo', Demo],
  ['engine agents add-model', EngineAgentsAddModel],
  ['engine agents list', EngineAgentsList],
  ['engine agents register', EngineAgentsRegister],
  ['engine agents status', EngineAgentsStatus],
  ['engine audit-log checkpoint', EngineAuditLogCheckpoint],
  ['engine audit-log', EngineAuditLog],
  ['engine audit-log verify', EngineAuditLogVerify],
  ['engine dropcopy rejects', EngineDropcopyRejects],
  ['engine dropcopy status', EngineDropcopyStatus],
  ['engine erase', EngineErase],
  ['engine keys gen', EngineKeysGen],
  ['engine log head', EngineLogHead],
  ['engine log key', EngineLogKey],
  ['engine log verify', EngineLogVerify],
  ['engine orphans', EngineOrphans],
  ['engine pending', EnginePending],
  ['engine policy check', EnginePolicyCheck],
  ['engine policy show', EnginePolicyShow],
  ['engine reconcile', EngineReconcile],
  ['engine shadow off', EngineShadowOff],
  ['engine shadow on', EngineShadowOn],
  ['engine shadow status', EngineShadowStatus],
  ['engine sweep', EngineSweep],
  ['engine tokens bootstrap', EngineTokensBootstrap],
  ['engine tokens issue', EngineTokensIssue],
  ['engine tokens list', EngineTokensList],
  ['engine tokens revoke', EngineTokensRevoke],
  ['engine traces list', EngineTracesList],
  ['engine traces show', EngineTracesShow],
  ['engine traces verify', EngineTracesVerify],
  ['pipeline check', PipelineCheck],
  ['pipeline fetch', PipelineFetch],
  ['pipeline nightly', PipelineNightly],
  ['pipeline run', PipelineRun],
  ['pipeline schedule', PipelineSchedule],
  ['pipeline status', PipelineStatus],
  ['quant arima', QuantArima],
  ['quant evaluate', QuantEvaluate],
  ['quant metrics', QuantMetrics],
  ['regime heartbeat', RegimeHeartbeat],
  ['regime publish', RegimePublish],
  ['regime release', RegimeRelease],
  ['regime show', RegimeShow],
  ['serve', Serve],
  ['signals backtest', SignalsBacktest],
  ['signals export', SignalsExport],
  ['signals forecast', SignalsForecast],
  ['signals heartbeat-key', SignalsHeartbeatKey],
  ['signals history', SignalsHistory],
  ['signals keys issue', SignalsKeysIssue],
  ['signals keys list', SignalsKeysList],
  ['signals keys revoke', SignalsKeysRevoke],
  ['signals keys set-tier', SignalsKeysSetTier],
  ['signals latest', SignalsLatest],
  ['signals log backfill', SignalsLogBackfill],
  ['signals log head', SignalsLogHead],
  ['signals log key', SignalsLogKey],
  ['signals outbox', SignalsOutbox],
  ['signals performance', SignalsPerformance],
  ['signals range', SignalsRange],
  ['signals verify', SignalsVerify],
];

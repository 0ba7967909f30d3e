/**
 * Judges on tape (SPEC §6): rubrics, judge clients, and verdicts recorded in `judge.jsonl`.
 * @example
 * import { Rubric, judgeOnTape } from './judge/index.js'
 * const v = await judgeOnTape({ dir: s.dir, scenario: s.name, mode: s.mode, criterion: 'cites the refund policy', text: out.text, rubric: Rubric.model('openai/gpt-4.1-mini') })
 */
export { assertJudgeOnTape, judgeOnTape, regradeCommand, verdictDetails, type JudgeOnTapeInput, type Verdict } from './judge-on-tape.js'
export { judgeKey, textDigest, type CanonicalJudgeRequest } from './key.js'
export { buildPrompt, TEMPLATE_VERSION, type JudgePrompt } from './prompt.js'
export {
  isRubric,
  Rubric,
  type FnRubricOptions,
  type JudgeApi,
  type JudgeFn,
  type JudgeModelId,
  type JudgeReply,
  type ModelRubricOptions,
  type RubricOptions,
} from './rubric.js'
export {
  describeJudgeTapeReport,
  finishJudgeTapes,
  judgeFile,
  readJudgeTape,
  type JudgeEntry,
  type JudgeTapeReport,
} from './tape.js'

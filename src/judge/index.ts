/**
 * Judges on tape (SPEC §6): rubrics, judge clients, and verdicts recorded in `judge.jsonl`.
 * @example
 * import { Rubric, judgeOnTape } from './judge/index.js'
 * const rubric = Rubric.model('openai/gpt-4.1-mini')
 * const v = await judgeOnTape({ dir: s.dir, scenario: s.name, mode: s.mode, criterion: 'cites the refund policy', text: out.text, rubric })
 */
export { assertJudgeOnTape, judgeOnTape, type JudgeOnTapeInput, type Verdict } from './judge-on-tape.js'
export { textDigest } from './key.js'
export type { JudgePrompt } from './prompt.js'
export {
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
  readJudgeTape,
  type JudgeEntry,
} from './tape.js'

// ptc for Node: the `ptc` binary for this platform and a typed host of
// `ptc serve` (docs/node.md).

export {
  Ptc,
  PtcExitedError,
  PtcProtocolError,
  PtcRequestError,
  ToolError,
  ToolOutput,
  anthropicTools,
  openAITools,
  openAIResponsesTools,
  textOf,
} from "./client";
export type { RunOptions, RunOutcome, ServerInfo, StartOptions, Tool, ToolContext, ToolHandler } from "./client";
export { BinaryNotFoundError, PLATFORMS, PLATFORM_SCOPE, findBinary, linuxLibc, platformPackage } from "./binary";
export type { Libc } from "./binary";
export type {
  ApprovalAnswer,
  ApprovalRequest,
  Approver,
  Config,
  ContentBlock,
  Environment,
  ErrorCode,
  InvokeResult,
  Json,
  JsonSchema,
  ListedTool,
  Mode,
  Policy,
  Presentation,
  PresentedTool,
  ReadableStreamLike,
  Registered,
  RunEvent,
  RunResult,
  Signal,
  SignalShape,
  ToolDefinition,
} from "./types";

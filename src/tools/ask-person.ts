// save_memory asking the person which memory holds when the save found conflicts, where the
// client declared form elicitation. The save is made (and on disk) before anything is asked;
// the person's answer is applied as settle_conflict applies it; whatever goes wrong (a decline,
// no answer in time, an error on either side, an answer that no longer applies) leaves the pair
// in the review queue, and the answer still reports the save.
//
// How the question travels depends on the revision:
// - 2026-07-28: the handler returns an input-required result; the client asks the person and
//   calls save_memory again with the answer and the state minted here (signed: it comes back
//   through the client). This works over stateless HTTP too.
// - earlier revisions: an elicitation/create request on the connection, when the transport
//   carries requests from the server (stdio, in-process); stateless HTTP with JSON answers does
//   not, and those clients get the review queue.
import { createHash } from 'node:crypto';
import {
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  createRequestStateCodec,
  type ElicitRequestFormParams,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  type McpServer,
  type RequestStateCodec,
} from '@modelcontextprotocol/server';
import type { Logger } from 'pino';
import type { AskedPerson, SaveMemoryInput, SaveMemoryOutput } from '../contract/save-memory.js';
import type { Memory } from '../memory/index.js';
import { conflictQuestion, readAnswers, SETTLE_KEEP } from './conflict-question.js';
import type { ToolExtra } from './register.js';

export interface AskSettings {
  /**
   * The key that signs a question's state (2026-07-28): the same for every server of the
   * namespace that may receive the answer (HTTP serves each request with a pooled server).
   */
  key: Uint8Array;
  /** How long the person has to answer; later, the pair is left to the review queue. */
  answerWithinMs: number;
  /**
   * Whether the transport carries requests the server sends (stdio and in-process links do,
   * stateless HTTP with JSON answers does not): what asking needs before 2026-07-28.
   */
  push: boolean;
}

/** Five minutes: a person reads two sentences and picks one of four choices. */
export const ANSWER_WITHIN_MS = 300_000;

/** A signed state's own expiry (the signing codec's wall clock); the answer window is shorter. */
const STATE_TTL_SECONDS = 86_400;

/** The key of the question in an input-required result. */
const QUESTION = 'which_holds';

/** What a 2026-07-28 question carries to the next round. */
interface QuestionState {
  v: 1;
  /** The save's answer, as it will be given with what the person chose. */
  saved: SaveMemoryOutput;
  /** When the question was put (the memory's clock, epoch seconds). */
  asked_at: number;
  /** The call's arguments, hashed: the answer must come with the same call. */
  call: string;
}

const UNANSWERED: AskedPerson = { answer: 'unanswered', settled: [] };

type Channel = 'return' | 'request' | 'none';

/** Whether capabilities declare form elicitation (an `elicitation: {}` of 2025-06-18 does). */
export function declaresForm(capabilities: ClientCapabilities | undefined): boolean {
  const elicitation = capabilities?.elicitation;
  if (elicitation === undefined || elicitation === null) return false;
  return elicitation.form !== undefined || elicitation.url === undefined;
}

const callDigest = (input: SaveMemoryInput) =>
  createHash('sha256').update(JSON.stringify(input)).digest('base64url');

export class ConflictAsker {
  private codec: RequestStateCodec<QuestionState> | undefined;

  constructor(
    private readonly server: McpServer,
    private readonly memory: Memory,
    private readonly logger: Logger,
    private readonly settings: AskSettings,
  ) {}

  /** Saves, then asks about what the save may contradict where the client can be asked. */
  async save(
    input: SaveMemoryInput,
    extra: ToolExtra,
  ): Promise<SaveMemoryOutput | InputRequiredResult> {
    const echoed = extra.mcpReq.requestState();
    if (typeof echoed === 'string') {
      const state = await this.verified(echoed, input, extra);
      if (state !== undefined) return { ...state.saved, asked: await this.answered(state, extra) };
      // A state not ours (another process, changed arguments, too old): a call like any other,
      // which saving the same content again makes a reinforcement. Nothing is asked twice.
      return this.memory.writing.save(input);
    }
    const saved = await this.memory.writing.save(input);
    if (saved.conflicts.length === 0) return saved;
    const channel = this.channel(extra);
    if (channel === 'none') return saved;
    const question = conflictQuestion(input.content, saved.conflicts);
    if (channel === 'request')
      return { ...saved, asked: await this.askNow(saved, question, extra) };
    try {
      const state: QuestionState = {
        v: 1,
        saved,
        asked_at: this.memory.now(),
        call: callDigest(input),
      };
      return inputRequired({
        inputRequests: { [QUESTION]: inputRequired.elicit(question) },
        requestState: await this.stateCodec().mint(state),
      });
    } catch (error) {
      this.failed(error);
      return { ...saved, asked: UNANSWERED };
    }
  }

  /** How the person can be asked on this request, if at all. */
  private channel(extra: ToolExtra): Channel {
    const version = this.server.server.getNegotiatedProtocolVersion();
    if (version !== undefined && version >= '2026-07-28') {
      const envelope = extra.mcpReq.envelope as Record<string, unknown> | undefined;
      const declared = envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined;
      return declaresForm(declared) ? 'return' : 'none';
    }
    if (!this.settings.push) return 'none';
    return declaresForm(this.server.server.getClientCapabilities()) ? 'request' : 'none';
  }

  /** Asks over the connection (before 2026-07-28), bounded by the answer window. */
  private async askNow(
    saved: SaveMemoryOutput,
    question: ElicitRequestFormParams,
    extra: ToolExtra,
  ): Promise<AskedPerson> {
    try {
      const result = await extra.mcpReq.elicitInput(question, {
        timeout: this.settings.answerWithinMs,
        signal: extra.mcpReq.signal,
      });
      if (result.action !== 'accept') return { answer: 'declined', settled: [] };
      return await this.settle(saved, result.content);
    } catch (error) {
      this.failed(error);
      return UNANSWERED;
    }
  }

  /** The answer a 2026-07-28 client came back with, in time or not. */
  private async answered(state: QuestionState, extra: ToolExtra): Promise<AskedPerson> {
    if (this.memory.now() - state.asked_at > this.settings.answerWithinMs / 1000) return UNANSWERED;
    const response = inputResponse(extra.mcpReq.inputResponses, QUESTION);
    if (response.kind !== 'elicit') return UNANSWERED;
    if (response.action !== 'accept') return { answer: 'declined', settled: [] };
    return this.settle(state.saved, response.content);
  }

  /** Settles each pair answered, as settle_conflict does; a pair that fails stays queued. */
  private async settle(
    saved: SaveMemoryOutput,
    content: Record<string, unknown> | undefined,
  ): Promise<AskedPerson> {
    const settled: AskedPerson['settled'] = [];
    for (const answer of readAnswers(saved.conflicts, content)) {
      try {
        const done = await this.memory.conflicts.settle({
          memory_id: saved.memory_id,
          other_id: answer.memory_id,
          keep: SETTLE_KEEP[answer.keep],
        });
        settled.push({ ...answer, merged_id: done.memory_id });
      } catch (error) {
        // Settled meanwhile (the web page, settle_conflict), or a memory gone: it stays as it is.
        this.failed(error);
      }
    }
    return settled.length > 0 ? { answer: 'settled', settled } : UNANSWERED;
  }

  /** The state echoed by the client, if this server signed it for this very call. */
  private async verified(
    echoed: string,
    input: SaveMemoryInput,
    extra: ToolExtra,
  ): Promise<QuestionState | undefined> {
    try {
      const state = await this.stateCodec().verify(echoed, extra);
      return state.v === 1 && state.call === callDigest(input) ? state : undefined;
    } catch {
      return undefined;
    }
  }

  private stateCodec(): RequestStateCodec<QuestionState> {
    this.codec ??= createRequestStateCodec<QuestionState>({
      key: this.settings.key,
      ttlSeconds: STATE_TTL_SECONDS,
    });
    return this.codec;
  }

  /** Logged by kind only: a client's error message may hold anything. */
  private failed(error: unknown): void {
    this.logger.warn(
      { tool: 'save_memory', err: error instanceof Error ? error.name : typeof error },
      'save_memory: the person could not be asked which memory holds; the pair waits in the review queue',
    );
  }
}

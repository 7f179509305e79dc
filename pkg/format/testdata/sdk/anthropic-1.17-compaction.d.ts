// @anthropic-ai/sdk 1.17.0 (npm pack @anthropic-ai/sdk@1.17.0), resources/beta/messages/messages.d.ts:
// the compaction block a request sends back, and the compaction edit.
/**
 * Automatically compact older context when reaching the configured trigger
 * threshold.
 */
export interface BetaCompact20260112Edit {
    type: 'compact_20260112';
    /**
     * Additional instructions for summarization.
     */
    instructions?: string | null;
    /**
     * Whether to pause after compaction and return the compaction block to the user.
     */
    pause_after_compaction?: boolean;
    /**
     * When to trigger compaction. Defaults to 150000 input tokens.
     */
    trigger?: BetaInputTokensTrigger | null;
}
/**
 * A compaction block returned when autocompact is triggered.
 *
 * When content is None, it indicates the compaction failed to produce a valid
 * summary (e.g., malformed output from the model). Clients may round-trip
 * compaction blocks with null content; the server treats them as no-ops.
 */
export interface BetaCompactionBlock {
    /**
     * Summary of compacted content, or null if compaction failed
     */
    content: string | null;
    /**
     * Opaque metadata from prior compaction, to be round-tripped verbatim
     */
    encrypted_content: string | null;
    type: 'compaction';
    /**
     * Signature over the summary, to be sent back with the block verbatim
     */
    signature?: string | null;
    /**
     * The tool changes of the compacted range: the `tool_addition` and `tool_removal`
     * blocks that take the request's `tools` to the tool set in effect at the end of
     * the range, or `[]` when the range changed no tool. Absent when the server did
     * not compute them. Send the block back unchanged.
     */
    tool_changes?: Array<BetaResponseToolAdditionBlock | BetaResponseToolRemovalBlock> | null;
}
/**
 * A compaction block containing summary of previous context.
 *
 * Users should round-trip these blocks from responses to subsequent requests to
 * maintain context across compaction boundaries.
 *
 * When content is None, the block represents a failed compaction. The server
 * treats these as no-ops. Empty string content is not allowed.
 */
export interface BetaCompactionBlockParam {
    type: 'compaction';
    /**
     * Create a cache control breakpoint at this content block.
     */
    cache_control?: BetaCacheControlEphemeral | null;
    /**
     * Summary of previously compacted content, or null if compaction failed
     */
    content?: string | null;
    /**
     * Opaque metadata from prior compaction, to be round-tripped verbatim
     */
    encrypted_content?: string | null;
    /**
     * The block's signature as returned, to be sent back verbatim
     */
    signature?: string | null;
    /**
     * The tool changes of the compacted range, as the server returned them on this
     * block: the `tool_addition` and `tool_removal` entries that take the request's
     * `tools` to the tool set in effect at the end of the range. Send them back
     * unchanged with the block.
     */
    tool_changes?: Array<BetaRequestToolAdditionBlock | BetaRequestToolRemovalBlock> | null;
}

// lib/tools/BetaToolRunner.js: what the SDK's own runner does with a compaction
// without content (it keeps the conversation as it is), and the pair it refuses.
            yield* tslib_1.__classPrivateFieldGet(this, _BetaToolRunner_instances, "m", _BetaToolRunner_send).call(this, thread);
            const message = await tslib_1.__classPrivateFieldGet(this, _BetaToolRunner_message, "f");
            if (message.content.some((block) => block.type === 'compaction' && block.content)) {
                tslib_1.__classPrivateFieldGet(this, _BetaToolRunner_instances, "m", _BetaToolRunner_recordRemovalsFromHistory).call(this);
                // The response has to be sent back as it came, first, replacing the messages it summarizes.
                const response = { role: message.role, content: message.content };
                // Appending a reply the thread already holds is a no-op, so a copy the caller appended is left out.
                const appended = tslib_1.__classPrivateFieldGet(this, _BetaToolRunner_thread, "f").messages.slice(summarized).filter((m) => !(0, ThreadState_1.sameMessage)(m, response));
                tslib_1.__classPrivateFieldGet(this, _BetaToolRunner_thread, "f")._state.setMessages([response, ...appended]);
            }
            else {
                (0, log_1.loggerFor)(tslib_1.__classPrivateFieldGet(this, _BetaToolRunner_thread, "f")._client).warn('Compaction produced no summary; keeping the conversation as it is.');
                // If the run ends here, `done()` resolves to the last real message rather than this response.
                tslib_1.__classPrivateFieldSet(this, _BetaToolRunner_message, lastMessage, "f");
function rejectCompactionEdit(params) {
    // The compaction request is sent without `context_management`, so the API can't refuse the pair there:
    // it would run and bill the compaction, then refuse the next request.
    if (params.context_management?.edits?.some((edit) => edit.type.startsWith('compact_'))) {
        throw new error_1.AnthropicError("`compactBeforeNextTurn()` can't be used while `context_management` has a compaction edit, " +
            "because the API doesn't accept a compaction block together with one. Remove the edit first.");
    }
}

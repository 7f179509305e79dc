// Checks examples/vercel-tools.mjs against the AI SDK (run by
// TestVercelToolsExample when CONVO_TEST_AI_MODULES names a node_modules
// holding `ai`): the body render prints is refused as it is, and taken
// once its schemas are wrapped, a tool call's input validated against them.
import { generateText } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { readFileSync } from 'node:fs';
import { toOptions } from './vercel-tools.mjs';

const body = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const model = () => new MockLanguageModelV3({
  doGenerate: {
    content: [{ type: 'tool-call', toolCallId: 'call_1', toolName: 'get_current_weather', input: '{"location":"Boston, MA"}' }],
    finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
    usage: { inputTokens: { total: 1 }, outputTokens: { total: 1 } },
    warnings: [],
  },
});
let refused = '';
try {
  await generateText({ ...body, model: model() });
} catch (e) {
  refused = String(e.message);
}
if (!refused) throw new Error('the unwrapped tools were taken');
let got;
const opts = toOptions(body, { get_current_weather: async (input) => { got = input; return '22°C'; } });
const m = model();
const result = await generateText({ ...opts, model: m });
const sent = m.doGenerateCalls[0].tools.find((t) => t.name === 'get_current_weather');
if (got?.location !== 'Boston, MA' || sent.inputSchema.required[0] !== 'location') {
  throw new Error('tool not called as rendered: ' + JSON.stringify({ got, sent }));
}
console.log('ok: unwrapped refused (' + refused + '); wrapped: ' + result.toolResults.length + ' result');

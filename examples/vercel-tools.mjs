// Turns what `convo render --provider vercel --body --tools FILE` prints into
// generateText's options: the payload is JSON, so each tool's inputSchema is
// a plain JSON Schema, which the AI SDK takes only wrapped by jsonSchema()
// (unwrapped, generateText throws "schema is not a function").
//
//   convo render -c demo --provider vercel --body --model openai/gpt-5 --tools tools.json |
//     node examples/vercel-tools.mjs
import { generateText, jsonSchema, tool } from 'ai';

// toOptions wraps each tool's schema; execute runs a call (none: the calls
// come back in the result for the caller to run and append).
export function toOptions(body, execute = {}) {
  const tools = {};
  for (const [name, t] of Object.entries(body.tools ?? {})) {
    tools[name] = tool({ description: t.description, inputSchema: jsonSchema(t.inputSchema), execute: execute[name] });
  }
  return { ...body, tools };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const chunks = [];
  for await (const c of process.stdin) chunks.push(c);
  const result = await generateText(toOptions(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
  process.stdout.write(JSON.stringify(result.response.messages) + '\n');
}

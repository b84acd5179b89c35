// A stand-in for DeepSeek's chat-completions API (OpenAI-compatible, streaming SSE), so
// DeepSeek Harness runs headless with no model: each POST …/chat/completions is recorded and
// answered by `script(request, requests)`, which returns {tool: {name, input}} (one tool
// call) or {text} (an assistant message). Test code, not a model.
import { createServer } from 'node:http';
import { record, serve } from './record.mjs';

export async function startChat(script) {
  const requests = [];
  let n = 0;
  const server = createServer(async (req, res) => {
    const json = await record(req, requests);
    if (req.method !== 'POST' || !req.url.endsWith('/chat/completions')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'stand-in: not served', type: 'not_found' } }));
      return;
    }
    let step;
    try {
      step = await script(json, requests);
    } catch (e) {
      step = { text: `stand-in script error: ${e.stack}` };
    }
    n += 1;
    const id = `chatcmpl-standin-${n}`;
    const created = Math.floor(Date.now() / 1000);
    const model = json?.model || 'deepseek-standin';
    const chunk = (delta, finish = null) => ({ id, object: 'chat.completion.chunk', created, model,
      choices: [{ index: 0, delta, finish_reason: finish }] });
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const send = (data) => res.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
    send(chunk({ role: 'assistant', content: '' }));
    if (step.tool) {
      const args = JSON.stringify(step.tool.input);
      const cut = Math.floor(args.length / 2);
      send(chunk({ tool_calls: [{ index: 0, id: `call_standin_${n}`, type: 'function', function: { name: step.tool.name, arguments: args.slice(0, cut) } }] }));
      send(chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(cut) } }] }));
      send(chunk({}, 'tool_calls'));
    } else {
      send(chunk({ content: step.text }));
      send(chunk({}, 'stop'));
    }
    send({ id, object: 'chat.completion.chunk', created, model, choices: [],
      usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 } });
    send('[DONE]');
    res.end();
  });
  return serve(server, requests);
}

/** The tool messages of a chat-completions request, in order: {tool_call_id, text}. */
export function toolMessages(body) {
  const out = [];
  for (const m of body?.messages || []) {
    if (m.role !== 'tool') continue;
    const text = typeof m.content === 'string' ? m.content
      : (m.content || []).map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
    out.push({ tool_call_id: m.tool_call_id, text });
  }
  return out;
}

/**
 * A scripted agent, as in anthropic.mjs: `steps[i]` answers the main conversation once it
 * holds i tool results. Side requests without tools (the session title) get a short text.
 */
export function scripted(steps) {
  return (body) => {
    if (!Array.isArray(body?.tools) || body.tools.length === 0) return { text: 'askd client test' };
    const results = toolMessages(body);
    const step = steps[Math.min(results.length, steps.length - 1)];
    return typeof step === 'function' ? step(results) : step;
  };
}

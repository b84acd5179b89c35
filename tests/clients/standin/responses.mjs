// A stand-in for the OpenAI Responses API (streaming), so Codex runs headless with no model:
// each POST …/responses is recorded and answered by `script(request, requests)`, which returns
// {tool: {name, namespace?, input}} (a function_call item) or {text} (an assistant message). Test code.
import { createServer } from 'node:http';
import { record, serve } from './record.mjs';

export async function startResponses(script) {
  const requests = [];
  let n = 0;
  const server = createServer(async (req, res) => {
    const json = await record(req, requests);
    if (req.method !== 'POST' || !req.url.endsWith('/responses')) {
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
    const id = `resp_standin_${n}`;
    const item = step.tool
      ? { type: 'function_call', id: `fc_standin_${n}`, call_id: `call_standin_${n}`, name: step.tool.name,
        ...(step.tool.namespace ? { namespace: step.tool.namespace } : {}),
        arguments: JSON.stringify(step.tool.input), status: 'completed' }
      : { type: 'message', id: `msg_standin_${n}`, role: 'assistant', status: 'completed',
        content: [{ type: 'output_text', text: step.text, annotations: [] }] };
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    let seq = 0;
    const send = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n`);
    const response = { id, object: 'response', created_at: Math.floor(Date.now() / 1000), model: json?.model, status: 'in_progress', output: [] };
    send('response.created', { response });
    send('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress' } });
    if (!step.tool) {
      send('response.output_text.delta', { item_id: item.id, output_index: 0, content_index: 0, delta: step.text });
    }
    send('response.output_item.done', { output_index: 0, item });
    send('response.completed', { response: { ...response, status: 'completed', output: [item],
      usage: { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 10, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 20 } } });
    res.end();
  });
  return serve(server, requests);
}

/** The function_call_output items of a Responses request, in order: {call_id, text}. */
export function callOutputs(body) {
  const out = [];
  for (const item of body?.input || []) {
    if (item.type !== 'function_call_output') continue;
    const o = item.output;
    const text = typeof o === 'string' ? o
      : Array.isArray(o) ? o.map((c) => c.text ?? `[${c.type}]`).join('\n')
        : typeof o?.content === 'string' ? o.content : JSON.stringify(o);
    out.push({ call_id: item.call_id, text });
  }
  return out;
}

/** A scripted agent, as in anthropic.mjs: `steps[i]` answers once i tool outputs are in. */
export function scripted(steps) {
  return (body) => {
    const results = callOutputs(body);
    const step = steps[Math.min(results.length, steps.length - 1)];
    return typeof step === 'function' ? step(results) : step;
  };
}

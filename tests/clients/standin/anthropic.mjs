// A stand-in for the Anthropic Messages API (streaming), so Claude Code runs headless with
// no model: each POST /v1/messages is recorded and answered by `script(request, log)`, which
// returns either {tool: {name, input}} or {text} (see turn()). Test code, not a model.
import { createServer } from 'node:http';
import { record, serve } from './record.mjs';

export async function startAnthropic(script) {
  const requests = [];
  let n = 0;
  const server = createServer(async (req, res) => {
    const json = await record(req, requests);
    if (req.method !== 'POST' || !req.url.startsWith('/v1/messages')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: 'stand-in' } }));
      return;
    }
    if (req.url.startsWith('/v1/messages/count_tokens')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ input_tokens: 100 }));
      return;
    }
    let step;
    try {
      step = await script(json, requests);
    } catch (e) {
      step = { text: `stand-in script error: ${e.stack}` };
    }
    n += 1;
    const id = `msg_standin_${n}`;
    const model = json?.model || 'claude-standin';
    if (!json?.stream) {
      const content = step.tool
        ? [{ type: 'tool_use', id: `toolu_standin_${n}`, name: step.tool.name, input: step.tool.input }]
        : [{ type: 'text', text: step.text }];
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id, type: 'message', role: 'assistant', model, content,
        stop_reason: step.tool ? 'tool_use' : 'end_turn', stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 10 } }));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const send = (event, data) => res.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
    send('message_start', { message: { id, type: 'message', role: 'assistant', model, content: [],
      stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } } });
    if (step.tool) {
      send('content_block_start', { index: 0, content_block: { type: 'tool_use', id: `toolu_standin_${n}`, name: step.tool.name, input: {} } });
      const s = JSON.stringify(step.tool.input);
      const cut = Math.floor(s.length / 2);
      send('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: s.slice(0, cut) } });
      send('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: s.slice(cut) } });
    } else {
      send('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
      send('content_block_delta', { index: 0, delta: { type: 'text_delta', text: step.text } });
    }
    send('content_block_stop', { index: 0 });
    send('message_delta', { delta: { stop_reason: step.tool ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: 10 } });
    send('message_stop', {});
    res.end();
  });
  return serve(server, requests);
}

/** The tool_result blocks of a Messages request, in order: {tool_use_id, text, is_error}. */
export function toolResults(body) {
  const out = [];
  for (const m of body?.messages || []) {
    if (m.role !== 'user' || !Array.isArray(m.content)) continue;
    for (const b of m.content) {
      if (b.type !== 'tool_result') continue;
      const text = typeof b.content === 'string' ? b.content
        : (b.content || []).map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
      out.push({ tool_use_id: b.tool_use_id, text, is_error: !!b.is_error });
    }
  }
  return out;
}

/**
 * A scripted agent: `steps[i]` answers the main conversation once it holds i tool results;
 * each step is a value or a function of the tool results so far (the last one is what the
 * model was just shown). Side requests (no ToolSearch among the tools: titles, summaries)
 * get a short text.
 */
export function scripted(steps) {
  return (body) => {
    const main = (body?.tools || []).some((t) => t.name === 'ToolSearch');
    if (!main) return { text: 'askd client test' };
    const results = toolResults(body);
    const step = steps[Math.min(results.length, steps.length - 1)];
    return typeof step === 'function' ? step(results) : step;
  };
}

#!/usr/bin/env node
// The context figure: how many characters of askd a model is shown. Spawns `askd mcp` with
// the official TypeScript SDK, reads `initialize`'s instructions and `tools/list`, and counts
// every tool's name + description + JSON.stringify(inputSchema), plus the instructions.
// Prints the figure per tool and in total; exits 1 when the total exceeds the budget
// (24,000 characters, clients.md §2.8).
//
//   node tests/clients/context.mjs          # a table
//   node tests/clients/context.mjs --json   # one JSON line {total, budget, instructions, tools}
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { requireBinary, freshHome, workspaceOf, serverEnv, stopDaemonOf } from './lib.mjs';

export const BUDGET = 24000;

export async function measure() {
  requireBinary();
  const home = freshHome('askd-context-');
  const transport = new StdioClientTransport({ command: 'askd', args: ['mcp'], env: serverEnv(home), cwd: workspaceOf(home), stderr: 'ignore' });
  const client = new Client({ name: 'askd-context', version: '1.0.0' });
  try {
    await client.connect(transport);
    const instructions = client.getInstructions() || '';
    const tools = [];
    let cursor;
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined);
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    const perTool = tools.map((t) => {
      const name = t.name.length;
      const description = (t.description || '').length;
      const inputSchema = JSON.stringify(t.inputSchema).length;
      return { name: t.name, chars: name + description + inputSchema, description, inputSchema };
    });
    const total = instructions.length + perTool.reduce((s, t) => s + t.chars, 0);
    return { total, budget: BUDGET, instructions: instructions.length, tools: perTool };
  } finally {
    await client.close().catch(() => {});
    await stopDaemonOf(home);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const figure = await measure();
  if (process.argv.includes('--json')) {
    console.log(JSON.stringify(figure));
  } else {
    const w = Math.max(...figure.tools.map((t) => t.name.length), 'instructions'.length);
    console.log(`${'tool'.padEnd(w)}  ${'chars'.padStart(6)}  ${'descr.'.padStart(6)}  ${'schema'.padStart(6)}`);
    for (const t of [...figure.tools].sort((a, b) => b.chars - a.chars)) {
      console.log(`${t.name.padEnd(w)}  ${String(t.chars).padStart(6)}  ${String(t.description).padStart(6)}  ${String(t.inputSchema).padStart(6)}`);
    }
    console.log(`${'instructions'.padEnd(w)}  ${String(figure.instructions).padStart(6)}`);
    console.log(`total: ${figure.total} characters (budget ${figure.budget}) — ${figure.total <= figure.budget ? 'within' : 'OVER'} budget`);
  }
  process.exit(figure.total <= figure.budget ? 0 : 1);
}

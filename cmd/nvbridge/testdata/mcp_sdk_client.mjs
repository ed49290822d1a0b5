// An MCP client built on the official TypeScript SDK (@modelcontextprotocol/sdk),
// driven by TestMCPTypeScriptSDK. It talks to nvbridge over stdio (it spawns
// `nvbridge ... mcp`) or over streamable HTTP with a bearer token, and prints
// one JSON object with what each step saw; the Go test asserts on it.
//
//   node mcp_sdk_client.mjs stdio NVBRIDGE_BIN ARGS...
//   node mcp_sdk_client.mjs http URL TOKEN
//
// The workspace holds notes.txt ("hello world\nsecond line\n"), served by the
// scripted fake server: find_references hangs there, get_symbols is held until
// that references request arrived, hover until a $/cancelRequest did (and then
// answers with the fake's log).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const npmDir = process.env.NVBRIDGE_NPM_DIR;
if (!npmDir) throw new Error('NVBRIDGE_NPM_DIR is not set');
const require = createRequire(path.join(npmDir, 'package.json'));
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
const sdkVersion = JSON.parse(readFileSync(path.join(npmDir, 'node_modules/@modelcontextprotocol/sdk/package.json'))).version;

const [mode, ...rest] = process.argv.slice(2);
const out = { sdk: sdkVersion, mode };
const long = { timeout: 10 * 60 * 1000 }; // the Go test bounds the whole run

function transport(headers) {
  if (mode === 'stdio') {
    const [command, ...args] = rest;
    return new StdioClientTransport({ command, args, env: process.env, stderr: 'inherit' });
  }
  return new StreamableHTTPClientTransport(new URL(rest[0]), { requestInit: { headers } });
}

if (mode === 'http') {
  // A wrong token is refused before any session exists.
  const intruder = new Client({ name: 'intruder', version: '0' });
  try {
    await intruder.connect(transport({ Authorization: 'Bearer wrong' }));
    out.wrong_token = 'connected';
    await intruder.close();
  } catch (e) {
    out.wrong_token = `${e.code}: ${e.message}`; // StreamableHTTPError: code is the HTTP status
  }
}

const client = new Client({ name: 'nvbridge-sdk-e2e', version: '1.0.0' });
await client.connect(transport({ Authorization: `Bearer ${rest[1]}` }));
out.server = client.getServerVersion();
out.tools = (await client.listTools()).tools.map((t) => t.name);

async function call(name, args, options = long) {
  const r = await client.callTool({ name, arguments: args }, undefined, options);
  return { is_error: !!r.isError, structured: r.structuredContent ?? null, text: r.content?.[0]?.text ?? '' };
}
const lines = (r) => (r.structured?.lines ?? []).map((l) => l.text);

out.read = await call('read_file', { file: 'notes.txt' });
out.read_lines = lines(out.read);

// preview, apply, undo
out.preview = await call('edit_buffer', { file: 'notes.txt', edits: [{ line_start: 1, line_end: 1, new_text: 'hello there' }] });
out.lines_after_preview = lines(await call('read_file', { file: 'notes.txt' }));
out.apply = await call('apply_changeset', { changeset_id: out.preview.structured?.changeset_id });
out.lines_after_apply = lines(await call('read_file', { file: 'notes.txt' }));
out.undo = await call('undo', { file: 'notes.txt' });
out.lines_after_undo = lines(await call('read_file', { file: 'notes.txt' }));

// CONFLICT: the buffer moves between a preview and its apply.
const stale = await call('edit_buffer', { file: 'notes.txt', edits: [{ line_start: 2, line_end: 2, new_text: 'from the preview' }] });
out.direct = await call('edit_buffer', { file: 'notes.txt', preview: false, edits: [{ line_start: 2, line_end: 2, new_text: 'moved on' }] });
out.conflict = await call('apply_changeset', { changeset_id: stale.structured?.changeset_id });
out.lines_after_conflict = lines(await call('read_file', { file: 'notes.txt' }));

// Cancellation: abort a call that hangs at the language server.
const abort = new AbortController();
const hung = client
  .callTool({ name: 'find_references', arguments: { file: 'notes.txt', line: 1, symbol: 'hello' } }, undefined, { ...long, signal: abort.signal })
  .then((r) => ({ answered: r }), (e) => ({ rejected: String(e) }));
out.symbols_while_hung = await call('get_symbols', { file: 'notes.txt' }); // returns once the references request is at the server
abort.abort('the user changed their mind');
out.cancelled = await hung;
out.server_log = await call('get_hover_info', { file: 'notes.txt', line: 1, symbol: 'world' }); // held until $/cancelRequest arrived
out.after_cancel = await call('get_buffer_info', { file: 'notes.txt', include_content: false });

await client.close();
process.stdout.write(JSON.stringify(out) + '\n');

// Calls every tool of Hippo's MCP server with the official TypeScript MCP
// client, using the argument names, types and defaults of the TypeScript
// Hippo's MCP server (release 0.2.1), then Hippo's own tools. The client
// checks every structuredContent against the tool's outputSchema.
//
// Usage: node calls.mjs sse|streamable <base URL>
// Run by TestTypeScriptClient (mcp/tsclient_test.go), which starts the
// server and queues the fake LLM's replies. Exits 1 on any failed check.

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [transportName, base] = process.argv.slice(2);
const transport =
	transportName === "sse"
		? new SSEClientTransport(new URL("/sse", base))
		: new StreamableHTTPClientTransport(new URL("/mcp", base));
const client = new Client({ name: "hippo-tsclient-test", version: "1.0.0" });
await client.connect(transport);

const agent_id = "ts-agent";
let passed = 0;
let failed = 0;

// check runs one named step; a thrown error fails it and the run goes on.
async function check(name, fn) {
	try {
		await fn();
		passed++;
		console.log(`ok   ${name}`);
	} catch (err) {
		failed++;
		console.log(`FAIL ${name}: ${err?.stack ?? err}`);
	}
}

// call runs a tool and returns its text, structuredContent and isError.
async function call(name, args) {
	const res = await client.callTool({ name, arguments: args });
	const text = res.content
		.filter((c) => c.type === "text")
		.map((c) => c.text)
		.join("\n");
	return { text, data: res.structuredContent, isError: res.isError === true };
}

// ok is call that requires a successful result.
async function ok(name, args) {
	const r = await call(name, args);
	assert.equal(r.isError, false, `${name} failed: ${r.text}`);
	return r;
}

// The TypeScript Hippo's tools and their arguments; aliases are names
// Hippo accepts without listing them in its schema.
const tsTools = {
	remember_facts: ["agent_id", "text"],
	store_memory: ["agent_id", "content", "metadata"],
	recall_memories: ["agent_id", "kind", "limit", "query"],
	forget_memory: ["agent_id", "description", "threshold"],
	recall_memory_block: ["agent_id", "key"],
	replace_memory_block: ["agent_id", "key", "new_text", "old_text"],
	append_memory_block: ["agent_id", "content", "key"],
};
const aliases = { append_memory_block: { content: "text" } };

// Listing the tools also makes the client validate every result against
// its tool's outputSchema.
const { tools } = await client.listTools();
const byName = Object.fromEntries(tools.map((t) => [t.name, t]));

await check("tools/list: every TypeScript tool and argument", () => {
	for (const [name, args] of Object.entries(tsTools)) {
		const tool = byName[name];
		assert.ok(tool, `no tool ${name}`);
		for (const arg of args) {
			const prop = aliases[name]?.[arg] ?? arg;
			assert.ok(tool.inputSchema.properties[prop], `${name} has no argument ${prop} (for ${arg})`);
		}
	}
});

await check("tools/list: every tool declares an outputSchema", () => {
	for (const tool of tools) {
		assert.equal(tool.outputSchema?.type, "object", `${tool.name} has no object outputSchema`);
	}
});

await check("remember_facts {agent_id, text}", async () => {
	const r = await ok("remember_facts", { agent_id, text: "I live in Berlin." });
	assert.equal(r.data.facts.length, 1);
	assert.equal(r.data.facts[0].content, "User lives in Berlin");
	assert.equal(r.data.facts[0].action, "new");
});

const doc = "We chose SQLite over PostgreSQL for the memory store";
let docID;
await check("store_memory {agent_id, content, metadata: JSON string}", async () => {
	const r = await ok("store_memory", {
		agent_id,
		content: doc,
		metadata: JSON.stringify({ source: "pdf", tags: ["db"] }),
	});
	assert.equal(r.data.duplicate, false);
	assert.deepEqual(r.data.memory.metadata, { source: "pdf", tags: ["db"] });
	docID = r.data.memory.id;
});

await check("store_memory {agent_id, content} again strengthens", async () => {
	const r = await ok("store_memory", { agent_id, content: doc });
	assert.equal(r.data.duplicate, true);
	assert.equal(r.data.memory.id, docID);
	assert.equal(r.data.memory.encounter_count, 2);
});

await check("store_memory {agent_id, content, metadata: object}", async () => {
	const r = await ok("store_memory", { agent_id, content: "Deploys happen on Fridays", metadata: { category: "decision" } });
	assert.deepEqual(r.data.memory.metadata, { category: "decision" });
});

await check("store_memory metadata string that is not an object", async () => {
	const r = await call("store_memory", { agent_id, content: "x", metadata: "not json" });
	assert.equal(r.isError, true);
	assert.match(r.text, /metadata: must be a JSON object, or a string holding one/);
	assert.equal(r.data.field, "metadata");
});

await check("recall_memories {agent_id, query, limit}", async () => {
	const r = await ok("recall_memories", { agent_id, query: doc, limit: 5 });
	assert.ok(r.data.results.length >= 1 && r.data.results.length <= 5);
	assert.equal(r.data.results[0].id, docID);
	assert.ok(r.text.includes(docID), "the text gives the full id");
});

await check("recall_memories {agent_id, query} (default limit 10)", async () => {
	const r = await ok("recall_memories", { agent_id, query: doc });
	assert.equal(r.data.results[0].content, doc);
});

await check("recall_memories {agent_id, query, kind}", async () => {
	const facts = await ok("recall_memories", { agent_id, query: "User lives in Berlin", kind: "fact" });
	assert.ok(facts.data.results.length >= 1);
	assert.ok(facts.data.results.every((x) => x.kind === "fact"));
	const memories = await ok("recall_memories", { agent_id, query: doc, kind: "memory" });
	assert.ok(memories.data.results.length >= 1);
	assert.ok(memories.data.results.every((x) => x.kind === "memory"));
});

await check("recall_memory_block {agent_id, key} of a missing block", async () => {
	const r = await ok("recall_memory_block", { agent_id, key: "objectives" });
	assert.equal(r.data.value, null);
});

await check("append_memory_block {agent_id, content, key}", async () => {
	let r = await ok("append_memory_block", { agent_id, content: "Ship v1", key: "objectives" });
	assert.equal(r.data.created, true);
	r = await ok("append_memory_block", { agent_id, content: "Write docs for v1", key: "objectives" });
	assert.equal(r.data.created, false);
	assert.equal(r.data.value, "Ship v1\nWrite docs for v1");
	r = await ok("recall_memory_block", { agent_id, key: "objectives" });
	assert.equal(r.text, "Ship v1\nWrite docs for v1");
});

await check("append_memory_block with content and text is an error", async () => {
	const r = await call("append_memory_block", { agent_id, key: "objectives", content: "a", text: "b" });
	assert.equal(r.isError, true);
	assert.equal(r.data.error, "invalid");
});

await check("replace_memory_block {agent_id, key, new_text, old_text}", async () => {
	const r = await ok("replace_memory_block", { agent_id, key: "objectives", new_text: "v2", old_text: "v1" });
	assert.equal(r.data.replacements, 2);
	assert.equal(r.data.value, "Ship v2\nWrite docs for v2");
});

await check("replace_memory_block errors: text not found, block missing", async () => {
	let r = await call("replace_memory_block", { agent_id, key: "objectives", new_text: "x", old_text: "v9" });
	assert.equal(r.isError, true);
	r = await call("replace_memory_block", { agent_id, key: "nothing", new_text: "x", old_text: "y" });
	assert.equal(r.isError, true);
	assert.equal(r.data.error, "not_found");
});

// Hippo's own tools, with their own argument names.
await check("list_memory_blocks, get_context, fact_history, reinforce_memory", async () => {
	let r = await ok("list_memory_blocks", { agent_id });
	assert.deepEqual(
		r.data.blocks.map((b) => b.key),
		["objectives"],
	);
	r = await ok("get_context", { agent_id, query: doc, max_chars: 2000 });
	assert.ok(r.data.text.includes("Ship v2"));
	r = await ok("fact_history", { agent_id, query: "where does the user live" });
	assert.ok(Array.isArray(r.data.history));
	r = await ok("reinforce_memory", { agent_id, upvotes: [docID], downvotes: ["no-such-id"] });
	assert.deepEqual(r.data.upvoted, [docID]);
	assert.deepEqual(r.data.not_found, ["no-such-id"]);
});

await check("forget_memory {agent_id, description, threshold}", async () => {
	let r = await ok("forget_memory", { agent_id, description: "something unrelated entirely", threshold: 0.99 });
	assert.equal(r.data.deleted.length, 0);
	r = await ok("forget_memory", { agent_id, description: doc });
	assert.deepEqual(
		r.data.deleted.map((d) => d.id),
		[docID],
	);
});

// The TypeScript Hippo takes 0, deleting everything at all similar;
// Hippo refuses it as surely a mistake, deleting nothing.
await check("forget_memory {agent_id, description, threshold: 0} is refused", async () => {
	let r = await call("forget_memory", { agent_id, description: "User lives in Berlin", threshold: 0 });
	assert.equal(r.isError, true);
	assert.equal(r.data.field, "threshold");
	r = await ok("recall_memories", { agent_id, query: "User lives in Berlin", kind: "fact" });
	assert.equal(r.data.results[0].content, "User lives in Berlin");
});

await check("delete_memory_block {agent_id, key}", async () => {
	const r = await ok("delete_memory_block", { agent_id, key: "objectives" });
	assert.equal(r.data.deleted, true);
});

await client.close();
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);

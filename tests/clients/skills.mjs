// skills.mjs: the TypeScript SDK v2's Skills-extension host client (SkillsClient, from
// @modelcontextprotocol/client/ext/skills, pinned in build/package.json) against a
// skilledge server, with its default options, for tests/skillsclient_e2e_test.go.
//
//	node skills.mjs URL ERA
//
// ERA is "default" (the client's default options: the legacy initialize handshake) or
// "modern" (pinned to 2026-07-28). It connects, calls list() (which throws for the whole
// listing if one entry breaks a rule of the extension or the Agent Skills format), then
// read()s every listed skill's SKILL.md (which checks its size and digest, and that its
// frontmatter equals the entry's) and prints one JSON report on stdout:
//
//	{"version", "supported", "listError"?, "skills": [{"uri", "description", "frontmatter",
//	 "read": {"ok": true} | {"reason", "differences", "message"}}]}
//
// The test decides what is right; this script only drives the client.
import { Client, StreamableHTTPClientTransport } from "../../build/node_modules/@modelcontextprotocol/client/dist/index.mjs";
import { SkillsClient, SkillVerificationError } from "../../build/node_modules/@modelcontextprotocol/client/dist/ext/skills/index.mjs";

const [url, era] = process.argv.slice(2);
const options = era === "modern" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : undefined;
const client = new Client({ name: "skilledge-skills-test", version: "1.0.0" }, options);
await client.connect(new StreamableHTTPClientTransport(new URL(url)));
const skills = new SkillsClient(client);

const report = { version: client.getNegotiatedProtocolVersion(), supported: skills.supported, skills: [] };
let listing;
try {
	listing = await skills.list();
} catch (err) {
	report.listError = String(err.message);
}
for (const skill of listing?.skills ?? []) {
	const entry = { uri: skill.uri, description: skill.frontmatter.description, frontmatter: skill.frontmatter };
	try {
		await skills.read(skill);
		entry.read = { ok: true };
	} catch (err) {
		entry.read = err instanceof SkillVerificationError
			? { reason: err.reason, differences: err.differences, message: err.message }
			: { reason: "other", message: String(err.message) };
	}
	report.skills.push(entry);
}
await client.close();
process.stdout.write(JSON.stringify(report));

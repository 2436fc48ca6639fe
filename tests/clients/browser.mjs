// browser.mjs: a real browser on the catalog page, for tests/browser_e2e_test.go.
//
//	node browser.mjs CHROMIUM URL SCREENSHOT
//
// Headless Chromium (Debian's package, driven by the pinned puppeteer-core) opens URL as a
// person would, saves a full-page screenshot to SCREENSHOT, and prints one JSON report of
// what rendered: the HTTP status and headers of the page, every console message and
// Content-Security-Policy violation, whether the stylesheet applied, the connect section's
// URL and configuration blocks, and every skill as the page shows it; then it types a
// search into the box and reports the hits the page's script shows, and, in a page with
// scripts off, submits the same search and reports the hits the server's page shows. The
// test decides what is right; this script only looks.
import puppeteer from "../../build/node_modules/puppeteer-core/lib/puppeteer/puppeteer-core.js";

const [chromium, url, screenshot] = process.argv.slice(2);
const browser = await puppeteer.launch({
	executablePath: chromium,
	headless: true,
	// Root in a container has no user namespaces for the sandbox; /dev/shm may be tiny.
	args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
});
try {
	const page = await browser.newPage();
	await page.setViewport({ width: 1280, height: 900 });
	const console_ = [];
	page.on("console", (m) => console_.push(`${m.type()}: ${m.text()}`));
	page.on("pageerror", (e) => console_.push(`pageerror: ${e.message}`));
	// Record CSP violations from inside the page (added through DevTools, which the page's
	// policy does not govern).
	await page.evaluateOnNewDocument(() => {
		window.__violations = [];
		document.addEventListener("securitypolicyviolation", (e) =>
			window.__violations.push(`${e.violatedDirective} blocked ${e.blockedURI || "inline"}`));
	});
	const response = await page.goto(url, { waitUntil: "load" });
	const report = await page.evaluate(() => {
		const text = (el) => (el ? el.textContent : null);
		return {
			title: document.title,
			h1: text(document.querySelector("h1")),
			summary: text(document.querySelector("#summary")),
			bodyMaxWidth: getComputedStyle(document.body).maxWidth,
			preBackground: getComputedStyle(document.querySelector("pre")).backgroundColor,
			mcpURL: text(document.querySelector("#mcp-url")),
			configs: Object.fromEntries([...document.querySelectorAll("pre[id^=config-]")].map((p) => [p.id, p.textContent])),
			indexLinks: [...document.querySelectorAll("nav a")].map((a) => a.getAttribute("href")),
			skills: [...document.querySelectorAll("article.skill")].map((a) => ({
				name: text(a.querySelector(".name")),
				path: text(a.querySelector(".path")),
				description: text(a.querySelector(".description")),
				links: [...a.querySelectorAll(".links a")].map((l) => l.href),
				files: [...a.querySelectorAll("tbody tr")].map((tr) => ({
					name: text(tr.querySelector(".file")),
					href: tr.querySelector(".file a")?.href ?? null,
					size: Number(text(tr.querySelector(".size"))),
					sha256: text(tr.querySelector(".digest")),
				})),
			})),
			scripts: document.scripts.length,
		};
	});
	report.status = response.status();
	report.headers = response.headers();
	await page.screenshot({ path: screenshot, fullPage: true });

	// The search box as a person uses it: typed into, the script answering as they type…
	const hits = (list) => [...document.querySelectorAll(`${list} li .name`)].map((a) => ({ name: a.textContent, href: a.href }));
	await page.type("#q", "chart a csv file");
	await page.waitForFunction(() => !document.getElementById("results").hidden && document.querySelector("#results li"), { timeout: 15000 });
	report.typed = await page.evaluate(`(${hits})("#results")`);
	report.typedStatus = await page.evaluate(() => document.getElementById("search-status").textContent);
	report.typedURL = page.url();
	report.allHidden = await page.evaluate(() => document.getElementById("all").hidden);
	report.violations = await page.evaluate(() => window.__violations);
	report.console = console_;
	// …and with scripts off, the form submitted: the page the server answers for ?q=.
	const plain = await browser.newPage();
	await plain.setJavaScriptEnabled(false);
	await plain.goto(url, { waitUntil: "load" });
	await plain.type("#q", "chart a csv file");
	const [submitted] = await Promise.all([plain.waitForNavigation({ waitUntil: "load" }), plain.click("#search button")]);
	report.submitted = await plain.evaluate(`(${hits})("#found-skills")`);
	report.submittedStatus = submitted.status();
	report.submittedURL = plain.url();
	report.submittedFound = await plain.evaluate(() => document.getElementById("found")?.textContent ?? null);
	report.submittedValue = await plain.evaluate(() => document.getElementById("q").value);
	process.stdout.write(JSON.stringify(report));
} finally {
	await browser.close();
}

// browser.mjs: a real browser on the catalog page, for tests/browser_e2e_test.go.
//
//	node browser.mjs CHROMIUM URL SCREENSHOT
//
// Headless Chromium (Debian's package, driven by the pinned puppeteer-core) opens URL as a
// person would, saves a full-page screenshot to SCREENSHOT, and prints one JSON report of
// what rendered: the HTTP status and headers of the page, every console message and
// Content-Security-Policy violation, whether the stylesheet applied, the connect section's
// URL and configuration blocks, and every skill as the page shows it. The test decides
// what is right; this script only looks.
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
			violations: window.__violations,
			scripts: document.scripts.length,
		};
	});
	report.status = response.status();
	report.headers = response.headers();
	report.console = console_;
	await page.screenshot({ path: screenshot, fullPage: true });
	process.stdout.write(JSON.stringify(report));
} finally {
	await browser.close();
}

// An MCP client that follows the protocol's authorization with the
// official TypeScript SDK: it meets 401 at the server, discovers the
// authorization server, registers itself, and sends "the browser" to the
// authorization page; the browser part (the person's session cookie, the
// consent form, allowing or denying) is done here with fetch, as a person
// would click. Then the SDK exchanges the code and calls the tools.
// Prints one JSON object for the Rust test.
//
//   node oauth.mjs <mcp url> <session cookie> <allow|deny> '<[["tool", {args}], ...]>'
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";

const [url, cookie, decision, callsJson] = process.argv.slice(2);
const calls = JSON.parse(callsJson || "[]");
const redirectUrl = "http://127.0.0.1:9/callback";
const out = { steps: [] };

// What the SDK keeps between the steps (a real client keeps it on disk).
const kept = {};
const provider = {
  get redirectUrl() { return redirectUrl; },
  get clientMetadata() {
    return {
      client_name: "Quire test agent",
      redirect_uris: [redirectUrl],
      grant_types: ["authorization_code"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  },
  state() { return "state-123"; },
  clientInformation() { return kept.client; },
  saveClientInformation(info) { kept.client = info; out.clientRegistered = { id: info.client_id, name: info.client_name }; },
  tokens() { return kept.tokens; },
  saveTokens(tokens) { kept.tokens = tokens; out.tokenType = tokens.token_type; },
  redirectToAuthorization(authorizationUrl) { kept.authorizationUrl = authorizationUrl; },
  saveCodeVerifier(verifier) { kept.verifier = verifier; },
  codeVerifier() { return kept.verifier; },
};

// The person's browser: the consent page, then their answer.
async function consent(authorizationUrl) {
  const page = await fetch(authorizationUrl, { headers: { cookie }, redirect: "manual" });
  out.consentStatus = page.status;
  const html = await page.text();
  out.consentShowsClient = html.includes("Quire test agent");
  const form = new URLSearchParams();
  for (const [, name, value] of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    form.append(name, value.replaceAll("&amp;", "&").replaceAll("&quot;", '"').replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&#39;", "'"));
  }
  form.append("decision", decision);
  const answered = await fetch(new URL("/oauth/authorize", authorizationUrl), {
    method: "POST",
    headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
    body: form.toString(),
    redirect: "manual",
  });
  out.decisionStatus = answered.status;
  const back = new URL(answered.headers.get("location"));
  out.redirectedTo = `${back.origin}${back.pathname}`;
  out.returnedState = back.searchParams.get("state");
  out.returnedError = back.searchParams.get("error");
  return back.searchParams.get("code");
}

try {
  let transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
  let client = new Client({ name: "quire-oauth-test", version: "1.0.0" });
  try {
    await client.connect(transport);
    out.steps.push("connected without authorization");
  } catch (error) {
    if (!(error instanceof UnauthorizedError)) throw error;
    out.steps.push("unauthorized, sent to authorize");
    const authorizationUrl = kept.authorizationUrl;
    out.authorizationUrl = authorizationUrl ? `${authorizationUrl.origin}${authorizationUrl.pathname}` : null;
    out.challengeMethod = authorizationUrl?.searchParams.get("code_challenge_method") ?? null;
    const code = await consent(authorizationUrl);
    if (!code) throw new Error(`no code came back: ${out.returnedError}`);
    await transport.finishAuth(code);
    out.steps.push("code exchanged");
    transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
    client = new Client({ name: "quire-oauth-test", version: "1.0.0" });
    await client.connect(transport);
    out.steps.push("connected with the token");
  }
  out.tools = (await client.listTools()).tools.map((t) => t.name);
  out.calls = [];
  for (const [name, args] of calls) {
    const result = await client.callTool({ name, arguments: args });
    out.calls.push({
      isError: result.isError ?? false,
      text: result.content.filter((c) => c.type === "text").map((c) => c.text).join("\n---\n"),
    });
  }
  out.accessToken = kept.tokens?.access_token ?? null;
  await client.close();
} catch (error) {
  out.error = String(error?.message ?? error);
}
console.log(JSON.stringify(out));

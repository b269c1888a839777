// The OpenID provider Quire's tests sign in with: the certified
// `oidc-provider` package on 127.0.0.1:PORT, with one client (Quire) and one
// account (OIDC_ACCOUNT, JSON claims) that every login and consent is given
// to at once, so a test (or a browser) goes through the real authorization
// code flow without a form. Prints `ready <issuer>` once listening.

import Provider from 'oidc-provider';

const port = Number(process.env.PORT);
const issuer = `http://127.0.0.1:${port}`;
const account = JSON.parse(process.env.OIDC_ACCOUNT);

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: process.env.OIDC_CLIENT_ID,
      client_secret: process.env.OIDC_CLIENT_SECRET,
      redirect_uris: [process.env.OIDC_REDIRECT_URI],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
    },
  ],
  claims: {
    openid: ['sub'],
    email: ['email', 'email_verified'],
    profile: ['name'],
  },
  pkce: { required: () => true },
  findAccount: async (_ctx, id) => ({
    accountId: id,
    claims: async () => ({ ...account, sub: id }),
  }),
  features: { devInteractions: { enabled: false } },
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  cookies: { keys: ['quire-test-cookie-key'] },
});

// Every interaction ends at once: log in as the account, grant what the
// client asked for.
provider.use(async (ctx, next) => {
  if (!ctx.path.startsWith('/interaction/')) {
    return next();
  }
  const details = await provider.interactionDetails(ctx.req, ctx.res);
  if (details.prompt.name === 'login') {
    await provider.interactionFinished(ctx.req, ctx.res, { login: { accountId: account.sub } }, { mergeWithLastSubmission: false });
    return undefined;
  }
  const grant = details.grantId
    ? await provider.Grant.find(details.grantId)
    : new provider.Grant({ accountId: details.session.accountId, clientId: details.params.client_id });
  grant.addOIDCScope(details.params.scope);
  const grantId = await grant.save();
  await provider.interactionFinished(ctx.req, ctx.res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  return undefined;
});

provider.listen(port, '127.0.0.1', () => {
  console.log(`ready ${issuer}`);
});

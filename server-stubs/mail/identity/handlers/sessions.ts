import type { Request } from 'express';
import { mailHandlers, type MailDeps } from '../../context.js';
import { planNames } from '../plans.js';
import { SsoTokenRefused } from '../sso.js';
import { seededUsers, type MailUser } from '../store.js';
import { invalidRequest } from '../../../lib/failures.js';

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

// Path=/ so the one cookie reaches every route of the service wherever it is mounted.
const sessionCookie = (req: Request, value: string, extra = '') => `session=${value}; Path=/; HttpOnly; SameSite=Lax${extra}${req.secure ? '; Secure' : ''}`;

const shownUser = (u: MailUser) => ({ id: u.id, email: u.email, name: u.name, plan: u.plan });

function loginPage(req: Request, returnTo: string, current: MailUser | undefined): string {
  const action = `${req.baseUrl}/api/auth/login`;
  const buttons = seededUsers
    .map((u) => `    <button type="submit" name="user_id" value="${escapeHtml(u.id)}">${escapeHtml(u.name)} (${escapeHtml(u.email)}, ${planNames[u.plan]} plan)</button>`)
    .join('\n');
  const signedIn = current
    ? `  <p>Signed in as ${escapeHtml(current.name)} (${escapeHtml(current.email)}).</p>
  <form method="post" action="${escapeHtml(`${req.baseUrl}/api/auth/logout`)}"><button type="submit">Log out</button></form>\n`
    : '';
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Sign in</title></head>
<body>
  <h1>Sign in (development)</h1>
${signedIn}  <form method="post" action="${escapeHtml(action)}">
    <input type="hidden" name="return_to" value="${escapeHtml(returnTo)}">
${buttons}
  </form>
</body>
</html>
`;
}

/** Sign-in (identity-provider token, development login page) and sign-out: the `session` cookie. */
export function sessionHandlers({ identity, sso, referrals }: MailDeps) {
  return mailHandlers({
    showLoginPage: ({ req, query }) => {
      const current = identity.sessionUser(String(req.cookies?.session ?? ''));
      const returnTo = query.return_to ?? `${req.baseUrl}/api/auth/login`;
      return { status: 200, contentType: 'text/html', text: loginPage(req, returnTo, current) };
    },

    logInAsUser: ({ req, body, fail }) => {
      const user = seededUsers.some((u) => u.id === body.user_id) ? identity.user(body.user_id) : undefined;
      if (!user) return invalidRequest({ fieldErrors: { user_id: ['Unknown user'] } });
      const session = identity.createSession(user.id);
      return { status: 303, headers: { Location: body.return_to ?? `${req.baseUrl}/api/auth/login`, 'Set-Cookie': sessionCookie(req, session) } };
    },

    exchangeSsoToken: async ({ req, body, fail }) => {
      let claims;
      try {
        claims = await sso(body.token);
      } catch (error) {
        if (error instanceof SsoTokenRefused) fail(400, undefined, error.message);
        throw error;
      }
      const existing = identity.userByEmail(claims.email);
      const user = existing ?? identity.createUser({ email: claims.email, name: claims.name ?? claims.email.split('@')[0]! });
      if (!existing && body.referral_code) referrals.recordSignup(body.referral_code, { userId: user.id, email: user.email });
      const session = identity.createSession(user.id);
      return { status: 200, headers: { 'Set-Cookie': sessionCookie(req, session) }, body: { success: true, data: { user: shownUser(user) } } };
    },

    logOut: ({ req }) => {
      identity.endSession(String(req.cookies?.session ?? ''));
      return { status: 200, headers: { 'Set-Cookie': sessionCookie(req, '', '; Max-Age=0') }, body: { success: true } };
    },
  });
}

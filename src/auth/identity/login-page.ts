/**
 * The identity service's own pages (login, one-time password change, sign-up, errors): plain server-rendered
 * HTML with a little inline CSS, nothing loaded from elsewhere, no script. Forms post back to the interaction
 * they belong to. Field names are stable (`email`, `password`, `newPassword`, `displayName`), as browser tests
 * and password managers rely on them.
 */

export const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'";

const STYLE = `
*{box-sizing:border-box}
body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;background:#f3f5f8;
  font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:#1c2430}
main{width:100%;max-width:380px;margin:24px;padding:28px 28px 20px;background:#fff;border-radius:8px;
  box-shadow:0 1px 3px rgba(0,0,0,.12),0 6px 24px rgba(0,0,0,.06)}
h1{margin:0 0 4px;font-size:1.35em;font-weight:600}
p.sub{margin:0 0 20px;color:#5b6676}
label{display:block;margin:14px 0 4px;font-weight:500}
input{width:100%;padding:9px 10px;border:1px solid #c5ccd6;border-radius:5px;font:inherit}
input:focus{outline:2px solid #2f6fde;outline-offset:0;border-color:#2f6fde}
button{width:100%;margin-top:20px;padding:10px;border:0;border-radius:5px;background:#2f6fde;color:#fff;font:inherit;font-weight:600;cursor:pointer}
button:hover{background:#255bb8}
.error{margin:0 0 12px;padding:9px 11px;border-radius:5px;background:#fdecea;color:#8a1c12}
.note{margin:0 0 12px;padding:9px 11px;border-radius:5px;background:#eef4ff;color:#1d3f7a}
.links{margin-top:18px;display:flex;justify-content:space-between;font-size:.92em}
a{color:#2f6fde}
small{color:#5b6676}
`;

export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)} · Asset platform</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

const message = (error?: string, note?: string) =>
  (error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : '') + (note ? `<p class="note">${escapeHtml(note)}</p>` : '');

export interface LoginPageOptions {
  action: string;
  clientName: string;
  email?: string;
  error?: string;
  note?: string;
  signupUrl?: string;
  abortUrl: string;
}

export function loginPage(o: LoginPageOptions): string {
  return layout(
    'Log in',
    `<h1>Log in</h1>
<p class="sub">to ${escapeHtml(o.clientName)}</p>
${message(o.error, o.note)}
<form method="post" action="${escapeHtml(o.action)}" autocomplete="on">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required autofocus value="${escapeHtml(o.email)}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit" id="login">Log in</button>
</form>
<div class="links">${o.signupUrl ? `<a href="${escapeHtml(o.signupUrl)}" id="signup-link">Create an account</a>` : '<span></span>'}<a href="${escapeHtml(o.abortUrl)}">Cancel</a></div>`,
  );
}

export interface PasswordPageOptions {
  action: string;
  email: string;
  error?: string;
  abortUrl: string;
}

export function changePasswordPage(o: PasswordPageOptions): string {
  return layout(
    'Choose a password',
    `<h1>Choose your password</h1>
<p class="sub">${escapeHtml(o.email)} logged in with a one-time password. Choose your own to continue.</p>
${message(o.error)}
<form method="post" action="${escapeHtml(o.action)}">
<input type="hidden" name="email" value="${escapeHtml(o.email)}" autocomplete="username">
<label for="newPassword">New password <small>(at least 12 characters)</small></label>
<input id="newPassword" name="newPassword" type="password" autocomplete="new-password" minlength="12" required autofocus>
<button type="submit" id="change-password">Set password and continue</button>
</form>
<div class="links"><span></span><a href="${escapeHtml(o.abortUrl)}">Cancel</a></div>`,
  );
}

export interface SignupPageOptions {
  action: string;
  loginUrl: string;
  email?: string;
  displayName?: string;
  error?: string;
}

export function signupPage(o: SignupPageOptions): string {
  return layout(
    'Create an account',
    `<h1>Create an account</h1>
<p class="sub">An organization owner can then invite you.</p>
${message(o.error)}
<form method="post" action="${escapeHtml(o.action)}">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required autofocus value="${escapeHtml(o.email)}">
<label for="displayName">Name <small>(optional)</small></label>
<input id="displayName" name="displayName" type="text" autocomplete="name" value="${escapeHtml(o.displayName)}">
<label for="password">Password <small>(at least 12 characters)</small></label>
<input id="password" name="password" type="password" autocomplete="new-password" minlength="12" required>
<button type="submit" id="signup">Create account and log in</button>
</form>
<div class="links"><a href="${escapeHtml(o.loginUrl)}">I have an account</a><span></span></div>`,
  );
}

export function errorPage(title: string, text: string): string {
  return layout(title, `<h1>${escapeHtml(title)}</h1>\n<p class="sub">${escapeHtml(text)}</p>`);
}

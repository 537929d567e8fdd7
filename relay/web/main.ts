// The relay's channel page in the browser: sign in, the live list, a delivery. Built by
// esbuild.mjs into dist/page/app.js; served by relay/server/page with a strict CSP.
import { api, ApiError, type Who } from './api';
import { h, clear } from './dom';
import { DeliveryList } from './list';
import { showDelivery, type OpenDelivery } from './detail';

const root = h('main', { class: 'app' });

function signInView(message?: string): void {
  const token = h('input', {
    type: 'password',
    name: 'token',
    id: 'token',
    autocomplete: 'current-password',
    required: true,
    placeholder: 'relay or channel token',
  });
  const error = h('p', { class: 'error', role: 'alert', id: 'sign-in-error' }, message ?? '');
  const form = h(
    'form',
    { class: 'sign-in', id: 'sign-in' },
    h('h1', {}, 'Relay deliveries'),
    h('p', { class: 'muted' }, 'Sign in with the relay (admin) token or a channel token. It is kept in an HttpOnly cookie for this relay only.'),
    h('label', { for: 'token' }, 'Token'),
    token,
    h('button', { type: 'submit' }, 'Sign in'),
    error,
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const value = token.value;
    token.value = '';
    api.signIn(value).then(appView, (err: Error) => (error.textContent = err.message));
  });
  clear(root, form);
  token.focus();
}

function appView(who: Who): void {
  const detail = h('section', { class: 'detail', id: 'detail', hidden: true });
  const closeDetail = () => {
    detail.hidden = true;
    list.el.classList.remove('behind');
  };
  let open: OpenDelivery | undefined;
  const list = new DeliveryList(
    who,
    (seq) => {
      list.el.classList.add('behind');
      open = undefined;
      void showDelivery(detail, who, seq, closeDetail).then((o) => (open = o));
    },
    (s) => {
      if (!detail.hidden && open?.seq === s.seq) void open.refresh().catch(() => undefined);
    },
  );
  const signOut = h('button', { type: 'button', id: 'sign-out', class: 'secondary' }, 'Sign out');
  signOut.addEventListener('click', () => {
    list.stop();
    api.signOut().then(
      () => signInView('Signed out.'),
      (err: Error) => signInView(err.message),
    );
  });
  const scope = who.kind === 'admin' ? 'admin: every channel' : `channel ${who.channel}`;
  const header = h('header', { class: 'bar' }, h('h1', {}, 'Relay deliveries'), h('span', { class: 'muted', id: 'scope' }, scope), signOut);
  clear(root, header, list.el, detail);
  list.start().catch((err: Error) => {
    if (err instanceof ApiError && err.status === 401) signInView('Your session ended. Sign in again.');
  });
}

document.body.append(root);
api.whoAmI().then(appView, () => signInView());

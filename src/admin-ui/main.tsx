import { createRoot } from 'react-dom/client';
import { App } from './app';
import { finishSignIn } from './auth';
import { config } from './config';
import './styles.css';

async function boot() {
  let problem: unknown;
  if (location.pathname === `${config.base}/admin/callback`) {
    try {
      history.replaceState(null, '', await finishSignIn());
    } catch (err) {
      problem = err;
      history.replaceState(null, '', `${config.base}/admin`);
    }
  }
  createRoot(document.getElementById('root')!).render(<App problem={problem} />);
}

boot();

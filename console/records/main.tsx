import { render } from 'preact';
import '../shared/styles.css';
import { App } from './app.js';
import { start } from './session.js';

void start();
render(<App />, document.getElementById('app') as HTMLElement);

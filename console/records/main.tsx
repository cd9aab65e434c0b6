import { render } from 'preact';
import '../shared/styles.css';
import { App } from './app.js';

render(<App />, document.getElementById('app') as HTMLElement);

/** The panel's entry: one render of the app into index.html's #app. */
import { render } from 'preact';
import { App } from './app';
import './styles/app.css';

const root = document.getElementById('app');
if (root) render(<App />, root);

import { render } from 'preact';
import { adoptToken } from './api';
import { App } from './app';
import './styles.css';

adoptToken();
render(<App />, document.getElementById('app')!);

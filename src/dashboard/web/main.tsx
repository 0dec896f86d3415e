/** Mounts the dashboard and opens the fleet's event stream. */
import { render } from 'preact';
import { App } from './app.js';
import { FleetStore } from './fleet-store.js';

const store = new FleetStore();
store.connect('api/events');
const root = document.getElementById('app');
if (root !== null) render(<App store={store} />, root);

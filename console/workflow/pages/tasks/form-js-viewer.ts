// Loaded only by tasks with a form (see form-js-completion.tsx): form-js is most of their weight.
import { Form } from '@bpmn-io/form-js';
import '@bpmn-io/form-js/dist/assets/form-js.css';

export { Form };

// Loaded only by pages that show a diagram (see bpmn-diagram.tsx): bpmn-js is most of their weight.
import NavigatedViewer from 'bpmn-js/lib/NavigatedViewer';
import 'bpmn-js/dist/assets/diagram-js.css';
import 'bpmn-js/dist/assets/bpmn-js.css';

export { NavigatedViewer };

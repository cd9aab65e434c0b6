// Registers the standard packages (side-effect imports, in dependency order).
import './core.js';
import './math.js';
import './string.js';
import './array.js';
import './map.js';
import './blob.js';
import './blob-edit.js';
import './bit-field.js';
import './parse-json.js';

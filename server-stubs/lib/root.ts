import path from 'node:path';
import { fileURLToPath } from 'node:url';

const twoUp = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/**
 * The repository root: server-stubs/lib/ is two levels below it, and two more in the compiled mirror
 * (.cache/js/). Here rather than in scripts/ so the stubs and the mock can know it without importing
 * the pipeline.
 */
export const defaultRoot = path.basename(twoUp) === 'js' && path.basename(path.dirname(twoUp)) === '.cache' ? path.resolve(twoUp, '../..') : twoUp;

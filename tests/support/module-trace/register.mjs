// Loaded with --import: registers resolve-hooks.mjs for the whole process.
import { register } from 'node:module';

register(new URL('./resolve-hooks.mjs', import.meta.url));

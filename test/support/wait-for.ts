// The kit's, so the project's tests and a plugin author's poll the same way.
export { waitFor, type WaitForOptions } from '../../kit/testing/wait-for.ts';

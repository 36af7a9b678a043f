import { afterAll } from 'vitest';
import { stopTrackedGroups } from './childGroups.js';

// vitest's setupFiles entry: at the end of every test file, after the file's own hooks (after
// hooks run last-registered first), whatever child a test started and did not stop is stopped
// with its group. afterAll runs after a test timed out too, when the test's own stop never came.
afterAll(() => stopTrackedGroups());

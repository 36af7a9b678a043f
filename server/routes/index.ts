import { adminHandlers as foundationAdmin } from '../admin/handlers.js';
import type { Handlers } from '../http/types.js';
import { tokenHandlers } from './tokens.js';

/**
 * Every operation's handler, by operationId. mountOperations mounts exactly the operations of
 * openapi.yaml / admin.openapi.yaml found here; a test checks that none is missing.
 */
export const apiHandlers: Handlers = {
  ...tokenHandlers,
  // [handlers:api]
};

export const adminHandlers: Handlers = {
  ...foundationAdmin,
  // [handlers:admin]
};

import { controlHandlers } from '../admin/control.js';
import { deviceAdminHandlers } from '../admin/devices.js';
import { foundationAdminHandlers } from '../admin/foundation.js';
import { proxyAdminHandlers } from '../admin/proxy.js';
import { recorderAdminHandlers } from '../admin/recorders.js';
import { storageAdminHandlers } from '../admin/storage.js';
import { transcriptionAdminHandlers } from '../admin/transcriptions.js';
import { transcriptAdminHandlers } from '../admin/transcripts.js';
import { webhookAdminHandlers } from '../admin/webhooks.js';
import type { Handlers } from '../http/types.js';
import { deviceHandlers } from './devices.js';
import { storageHandlers } from './storage.js';
import { tokenHandlers } from './tokens.js';
import { transcriptionHandlers } from './transcriptions.js';

/**
 * Every operation's handler, by operationId. mountOperations mounts exactly the operations of
 * openapi.yaml / admin.openapi.yaml found here; a test checks that none is missing.
 */
export const apiHandlers: Handlers = {
  ...tokenHandlers,
  ...deviceHandlers,
  ...transcriptionHandlers,
  ...storageHandlers,
};

export const adminHandlers: Handlers = {
  ...foundationAdminHandlers,
  ...deviceAdminHandlers,
  ...recorderAdminHandlers,
  ...transcriptionAdminHandlers,
  ...transcriptAdminHandlers,
  ...controlHandlers,
  ...storageAdminHandlers,
  ...webhookAdminHandlers,
  ...proxyAdminHandlers,
};

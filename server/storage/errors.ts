import { SimError } from '../core/errors.js';

/** S3's answer for an upload id that is unknown, aborted, completed or not the caller's. */
export const noSuchUpload = (resource?: string): SimError =>
  new SimError(
    404,
    'NoSuchUpload',
    'The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.',
    resource ? { resource } : {},
  );

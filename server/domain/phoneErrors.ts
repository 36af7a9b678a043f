import { SimError } from '../core/errors.js';

export const phoneNotFound = (id: string): SimError =>
  SimError.notFound('PHONE_NOT_FOUND', `No phone ${id}; create one with POST /phones.`);

export const unknownDevice = (what: string, moved: boolean): SimError =>
  SimError.notFound(
    'UNKNOWN_DEVICE',
    moved
      ? `Recorder ${what} has changed its radio id since this phone's scan (after a depair); scan again.`
      : `No recorder ${what} was seen by this phone's scan; scan first, then connect by uuid or serialNumber.`,
  );

/** What the platform answers outside every service, and for errors no service answered: still JSON, never Express's HTML page. */
import type { Request, Response } from 'express';
import { answerIn, platformError } from '../transport-errors.js';
import { sendError, type ServiceSlots } from './service-slots.js';

export interface Fallbacks {
  notFound(req: Request, res: Response): void;
  failed(error: unknown, req: Request, res: Response): void;
}

export function platformFallbacks(slots: ServiceSlots): Fallbacks {
  return {
    notFound: (req, res) => {
      const { body } = platformError({ kind: 'not_found', status: 404, message: `No route ${req.method} ${req.path}` });
      res.status(404).json({ ...(body as object), services: slots.services.map((s) => s.basePath) });
    },
    failed: (error, req, res) => {
      console.error(`${req.method} ${req.originalUrl}:`, error);
      if (res.headersSent) return void res.end();
      const status = (error as { status?: number }).status;
      const refused = status !== undefined && status >= 400 && status < 500;
      sendError(
        res,
        answerIn(slots.families, req.originalUrl, refused ? { kind: 'validation', status, message: 'Bad request' } : { kind: 'internal', status: 500, message: 'Internal error' }),
      );
    },
  };
}

// The grants over HTTP, for the web page (mounted at /ui/api/oauth, behind the admin token):
//   GET    /grants      → { grants: GrantSummary[] }
//   DELETE /grants/:id  → 204, or 404 when no grant has that id
import express from 'express';
import { HttpError } from '../transport/http-error.js';
import type { Grants } from './grants.js';

const noSuchGrant = () =>
  new HttpError(404, 'no grant has this id: list them with GET /ui/api/oauth/grants');

export function grantsApi(grants: Grants): express.Router {
  const router = express.Router();
  router.get('/grants', async (_req, res) => {
    res.json({ grants: await grants.list() });
  });
  router.delete('/grants/:id', async (req, res) => {
    if (!(await grants.revoke(String(req.params.id)))) throw noSuchGrant();
    res.status(204).end();
  });
  // An id whose percent-encoding does not decode (`/grants/%zz`): express's URIError, a 500
  // below; no grant has it.
  router.use(
    (error: unknown, _req: express.Request, _res: express.Response, next: express.NextFunction) => {
      next(error instanceof URIError ? noSuchGrant() : error);
    },
  );
  return router;
}

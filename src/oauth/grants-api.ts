// The grants over HTTP, for the web page (mounted at /ui/api/oauth, behind the admin token):
//   GET    /grants      → { grants: GrantSummary[] }
//   DELETE /grants/:id  → 204, or 404 when no grant has that id
import express from 'express';
import { HttpError } from '../transport/http-error.js';
import type { Grants } from './grants.js';

export function grantsApi(grants: Grants): express.Router {
  const router = express.Router();
  router.get('/grants', async (_req, res) => {
    res.json({ grants: await grants.list() });
  });
  router.delete('/grants/:id', async (req, res) => {
    if (!(await grants.revoke(String(req.params.id)))) {
      throw new HttpError(404, 'no grant has this id: list them with GET /ui/api/oauth/grants');
    }
    res.status(204).end();
  });
  return router;
}

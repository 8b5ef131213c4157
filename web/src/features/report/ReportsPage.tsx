import { storage } from '../../lib/storage.ts';
import { MisReport } from './MisReport.tsx';

/** /reports: the signed-in user's own MIS Report. */
export default function ReportsPage() {
  const userId = storage.userId();
  return userId ? <MisReport userId={userId} titleOrder={1} /> : null;
}

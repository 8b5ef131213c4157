import { MisReport } from '../../components/report/MisReport.tsx';
import { storage } from '../../lib/storage.ts';

/** /reports: the signed-in user's own MIS Report. */
export default function ReportsPage() {
  const userId = storage.userId();
  return userId ? <MisReport userId={userId} titleOrder={2} /> : null;
}

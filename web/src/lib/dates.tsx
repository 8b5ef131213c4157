import { DatesProvider, type DatesProviderSettings } from '@mantine/dates';
import 'dayjs/locale/en-in';
import type { ReactNode } from 'react';
import './dates.css';

/**
 * One calendar for the whole app: en-IN, weeks from Monday, Sunday the
 * weekend. dates.css draws weekends and other months' days at AA contrast.
 */
export const DATES_SETTINGS: DatesProviderSettings = { locale: 'en-in', firstDayOfWeek: 1, weekendDays: [0] };

/** Names for the calendar's arrow buttons, which have none by default (axe: button-name). */
export const CALENDAR_LABELS = {
  previousMonth: 'Previous month',
  nextMonth: 'Next month',
  previousYear: 'Previous year',
  nextYear: 'Next year',
  previousDecade: 'Previous decade',
  nextDecade: 'Next decade',
};

export function AppDates(props: { children: ReactNode }) {
  return <DatesProvider settings={DATES_SETTINGS}>{props.children}</DatesProvider>;
}

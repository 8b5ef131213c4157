import { ActionIcon } from '@mantine/core';
import { DateInput, DatesProvider, type DatesProviderSettings } from '@mantine/dates';
import { IconCalendar } from '@tabler/icons-react';
import { useRef, useState } from 'react';
import { DATE_FORMAT, DATE_TIME_FORMAT, parseDateText } from './date-text.ts';

/**
 * Calendars as in India: weeks start on Sunday. No weekend days: Mantine paints them red-6, 3.3:1
 * on white (WCAG AA needs 4.5:1).
 */
const DATES_SETTINGS: DatesProviderSettings = { locale: 'en', firstDayOfWeek: 0, weekendDays: [] };

/** Names for the calendar's arrow buttons, which have none by default (axe: button-name). */
const CALENDAR_LABELS = {
  previousMonth: 'Previous month',
  nextMonth: 'Next month',
  previousYear: 'Previous year',
  nextYear: 'Next year',
  previousDecade: 'Previous decade',
  nextDecade: 'Next decade',
};

/** The time a day picked in the calendar gets when none was typed yet. */
const DEFAULT_TIME = '09:00:00';

/**
 * A date (or date and time) typed the en-IN way, day first (`24/11/2026, 02:30 pm`; issue 18:
 * the browser's own input showed mm/dd/yyyy), or whose day is picked in a calendar opened by the
 * button beside it. The calendar opens only from that button, so typing leaves the rest of the
 * modal in view. `value`: `YYYY-MM-DD HH:mm:ss` with a time, `YYYY-MM-DD` without, '' for none.
 */
export function ScheduleDateField(props: {
  label: string;
  description?: string;
  /** The calendar button's name. */
  calendarLabel: string;
  withTime: boolean;
  /** The earliest day the calendar offers (`YYYY-MM-DD`). */
  minDate: string;
  value: string;
  onChange: (value: string) => void;
}) {
  const [calendarOpen, setCalendarOpen] = useState(false);
  const pickedDay = useRef(false);

  const change = (next: string | null) => {
    let value = next ?? '';
    if (value && pickedDay.current && props.withTime) {
      // A day picked in the calendar keeps the time already chosen.
      value = `${value.slice(0, 10)} ${props.value.slice(11) || DEFAULT_TIME}`;
    }
    pickedDay.current = false;
    props.onChange(value);
  };

  return (
    <DatesProvider settings={DATES_SETTINGS}>
      <DateInput
        label={props.label}
        description={props.description}
        value={props.value || null}
        onChange={change}
        withTime={props.withTime}
        valueFormat={props.withTime ? DATE_TIME_FORMAT : DATE_FORMAT}
        dateParser={(text) => parseDateText(text, props.withTime)}
        placeholder={props.withTime ? 'DD/MM/YYYY, hh:mm am' : 'DD/MM/YYYY'}
        // Earlier days are not offered in the calendar, but a typed one is kept, so the modal's
        // check can say what is wrong with it instead of the text silently going back.
        excludeDate={(day) => day < props.minDate}
        clearable
        allowDeselect={false}
        popoverProps={{ opened: calendarOpen, onChange: setCalendarOpen }}
        ariaLabels={CALENDAR_LABELS}
        // The other months' days are drawn at half opacity, below the contrast AA asks for.
        hideOutsideDates
        getDayProps={() => ({
          onClick: () => {
            pickedDay.current = true;
            setCalendarOpen(false);
          },
        })}
        rightSection={
          <ActionIcon
            variant="subtle"
            color="gray"
            aria-label={props.calendarLabel}
            aria-expanded={calendarOpen}
            onClick={() => setCalendarOpen((open) => !open)}
          >
            <IconCalendar size={16} aria-hidden />
          </ActionIcon>
        }
        rightSectionPointerEvents="all"
      />
    </DatesProvider>
  );
}

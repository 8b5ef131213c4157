import { ActionIcon, Group } from '@mantine/core';
import { DateInput, TimePicker } from '@mantine/dates';
import { IconCalendar, IconClock } from '@tabler/icons-react';
import { useRef, useState } from 'react';
import { DATE_FORMAT, DATE_TIME_FORMAT, parseDateText } from '../lib/date-text.ts';
import { AppDates, CALENDAR_LABELS } from '../lib/dates.tsx';

/** The time a day picked in the calendar gets when none was typed yet. */
const DEFAULT_TIME = '09:00:00';

/**
 * A date (or date and time) typed the en-IN way, day first (`24/11/2026, 02:30 pm`:
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
  // The month the calendar shows, held here: left to itself it stayed on the month of a past
  // day once typed and cleared, every day disabled.
  const [shownMonth, setShownMonth] = useState(props.minDate);
  const toggleCalendar = () => {
    if (!calendarOpen) {
      const day = props.value.slice(0, 10);
      setShownMonth(day && day >= props.minDate ? day : props.minDate);
    }
    setCalendarOpen((open) => !open);
  };

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
    <AppDates>
      <Group gap="xs" align="flex-start" wrap="nowrap">
        <DateInput
          style={{ flex: 1, minWidth: 0 }}
          date={shownMonth}
          onDateChange={setShownMonth}
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
          clearButtonProps={{ 'aria-label': 'Clear the date' }}
          allowDeselect={false}
          popoverProps={{ opened: calendarOpen, onChange: setCalendarOpen }}
          ariaLabels={CALENDAR_LABELS}
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
              onClick={toggleCalendar}
            >
              <IconCalendar size={16} aria-hidden />
            </ActionIcon>
          }
          rightSectionPointerEvents="all"
        />
        {props.withTime && (
          // The time is picked too, not only typed (the calendar alone set 09:00).
          <TimePicker
            label="Time"
            format="12h"
            withDropdown
            minutesStep={5}
            disabled={!props.value}
            value={props.value.slice(11, 16)}
            onChange={(time) => {
              if (props.value && /^\d{2}:\d{2}/.test(time))
                props.onChange(`${props.value.slice(0, 10)} ${time.slice(0, 5)}:00`);
            }}
            hoursInputLabel="Hours"
            minutesInputLabel="Minutes"
            amPmInputLabel="AM or PM"
            leftSection={<IconClock size={16} aria-hidden />}
            w={150}
          />
        )}
      </Group>
    </AppDates>
  );
}

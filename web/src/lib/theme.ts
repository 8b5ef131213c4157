import {
  type CSSVariablesResolver,
  createTheme,
  darken,
  defaultVariantColorsResolver,
  luminance,
  parseThemeColor,
  type VariantColorsResolver,
} from '@mantine/core';

/** WCAG 2.1 AA: normal text needs 4.5:1 against its background. */
const AA = 4.5;
const contrast = (a: string, b: string) => {
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p) as [number, number];
  return (x + 0.05) / (y + 0.05);
};
/** `color` darkened in steps until `against` reads on it at AA (or it is nearly black). */
export function readableOn(color: string, against: string): string {
  let c = color;
  for (let i = 1; contrast(c, against) < AA && i <= 10; i++) c = darken(color, i * 0.05);
  return c;
}

/**
 * Mantine's colours for each variant, made AA (white on teal was 2.55:1, the light
 * badges 2.4-4.3:1): a filled control keeps white text on a shade dark enough for it; a light
 * one puts its colour's darkest shade (darkened until readable) on the lightest tint.
 */
const variantColorResolver: VariantColorsResolver = (input) => {
  const base = defaultVariantColorsResolver(input);
  const parsed = parseThemeColor({ color: input.color ?? input.theme.primaryColor, theme: input.theme });
  const shades = parsed.isThemeColor ? input.theme.colors[parsed.color] : undefined;
  if (!shades) return base;
  if (input.variant === 'filled') {
    const bg = readableOn(parsed.value, '#ffffff');
    return { ...base, background: bg, hover: darken(bg, 0.1), color: '#ffffff' };
  }
  if (input.variant === 'light') {
    return {
      ...base,
      background: shades[0]!,
      hover: shades[1]!,
      color: readableOn(shades[9]!, shades[1]!),
    };
  }
  return base;
};

/** Dimmed text (hints, captions, empty states) at AA: Mantine's gray 6 is 3.3:1 on white. */
const cssVariablesResolver: CSSVariablesResolver = (theme) => {
  const light: Record<string, string> = {
    '--mantine-color-dimmed': theme.colors.gray[7]!,
    // Placeholders ("Choose a file") in Mantine's gray 5 were 2.07:1 on white.
    '--mantine-color-placeholder': readableOn(theme.colors.gray[6]!, '#ffffff'),
  };
  // The light tints that components read as variables (NavLink's active item, light text such
  // as c="var(--mantine-color-green-light-color)"), like the resolver above.
  const tint = (prefix: string, shades: readonly string[]) => {
    light[`--mantine-${prefix}-light`] = shades[0]!;
    light[`--mantine-${prefix}-light-hover`] = shades[1]!;
    light[`--mantine-${prefix}-light-color`] = readableOn(shades[9]!, shades[1]!);
    // Filled controls under the pointer: Mantine takes the next shade, and from shade 9 that is
    // the lighter 8 (white on teal 8 was 3.94:1); darker instead, like the resolver.
    const filled = readableOn(shades[9]!, '#ffffff');
    light[`--mantine-${prefix}-filled`] = filled;
    light[`--mantine-${prefix}-filled-hover`] = darken(filled, 0.1);
  };
  for (const [name, shades] of Object.entries(theme.colors)) tint(`color-${name}`, shades);
  tint('primary-color', theme.colors[theme.primaryColor]!);
  // Links sit on table rows too: a striped or hovered row is gray 1-2 (teal 9 on a stripe was 4.49:1).
  light['--mantine-color-anchor'] = readableOn(theme.colors[theme.primaryColor]![9]!, theme.colors.gray[2]!);
  return { variables: {}, light, dark: {} };
};

export const theme = createTheme({
  primaryColor: 'teal',
  // Teal 9 under white text is 5.0:1 (teal 6, Mantine's default shade, 2.55:1).
  primaryShade: 9,
  fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif',
  variantColorResolver,
});
export { cssVariablesResolver };

/** One status vocabulary, one colour each, everywhere (STYLE.md). */
export const ACCOUNT_STATUS_COLOR: Record<string, string> = {
  CONNECTED: 'green',
  PENDING: 'yellow',
  DISCONNECTED: 'gray',
};
/** Jobs: waiting and paused amber-grey (yellow), partly sent amber (orange), failed red. */
export const JOB_STATUS_COLOR: Record<string, string> = {
  pending: 'gray',
  processing: 'blue',
  waiting: 'yellow',
  scheduled: 'violet',
  paused: 'yellow',
  completed: 'green',
  partly: 'orange',
  failed: 'red',
};

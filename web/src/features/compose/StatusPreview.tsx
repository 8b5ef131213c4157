import { Box, Image, Text } from '@mantine/core';
import { STATUS_FONTS } from '@wa/contract';

/**
 * How the Status looks on a phone: a text full-bleed on its colour in its font, or the
 * image or video with its caption below.
 */
export function StatusPreview(props: {
  kind: 'text' | 'media';
  text: string;
  backgroundColor: string;
  font: number;
  mediaUrl: string | null;
  isVideo: boolean;
}) {
  const font = STATUS_FONTS.find((f) => f.value === props.font) ?? STATUS_FONTS[0];
  return (
    <Box
      role="img"
      aria-label="Status preview"
      w={200}
      h={356}
      style={{
        borderRadius: 24,
        border: '6px solid #1f1f1f',
        overflow: 'hidden',
        display: 'flex',
        flexDirection: 'column',
        justifyContent: 'center',
        background: props.kind === 'text' ? props.backgroundColor : '#000',
      }}
    >
      {props.kind === 'text' ? (
        <Text
          data-testid="status-preview-text"
          ta="center"
          px="md"
          c="white"
          fw={props.font === 6 || props.font === 9 || props.font === 10 ? 700 : 400}
          style={{ fontFamily: font.css, fontSize: 20, wordBreak: 'break-word', whiteSpace: 'pre-wrap' }}
        >
          {props.text || 'Type a status'}
        </Text>
      ) : (
        <>
          {props.mediaUrl &&
            (props.isVideo ? (
              <video src={props.mediaUrl} muted style={{ width: '100%' }} aria-label="Video" />
            ) : (
              <Image src={props.mediaUrl} alt="Status image" fit="contain" />
            ))}
          {!props.mediaUrl && (
            <Text ta="center" c="gray.5" size="sm">
              Choose an image or a video
            </Text>
          )}
          {props.text && (
            <Text
              data-testid="status-preview-caption"
              ta="center"
              c="white"
              size="sm"
              p="xs"
              bg="rgba(0,0,0,0.5)"
            >
              {props.text}
            </Text>
          )}
        </>
      )}
    </Box>
  );
}

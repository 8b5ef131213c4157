export default function ComposePage() {
  return <div>ComposePage</div>;
}

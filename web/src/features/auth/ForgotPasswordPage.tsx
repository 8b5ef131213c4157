export default function ForgotPasswordPage() {
  return <div>ForgotPasswordPage</div>;
}
